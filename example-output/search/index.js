ccwikiSearch.shards(["knowledge","sessions-ledger-sync","sessions-tide-api","sessions-web-site-v2-0"]);
