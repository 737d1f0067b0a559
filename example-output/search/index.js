ccwikiSearch.spec({"weights":{"t":3.0,"h":2.0,"n":2.0,"f":1.5,"x":1.0,"o":0.5},"max_hits":10,"split":"\\s+","snippet_before":60,"snippet_chars":160});
ccwikiSearch.shards(["knowledge","sessions-ledger-sync","sessions-tide-api","sessions-web-site-v2-0"]);
