//! The search documents on their way to the index: encoded once, when
//! each is made, then kept in the build's spill file until the index is
//! written. A hundred thousand sessions' documents are 20 MB of JSON,
//! which was the largest thing held at the end of assembly.

use super::{shard_key, spec, Doc, DocKind};
use crate::knowledge::spill::Spill;
use std::collections::HashMap;

/// A document encoded: its shard and its JSON (made safe for a script).
/// Made where the document is, in parallel; kept in [`SearchDocs`].
#[derive(Debug, Clone)]
pub struct Packed {
    shard: Box<str>,
    json: Box<str>,
}

impl Packed {
    pub fn new(d: &Doc) -> Packed {
        let shard = match d.kind {
            DocKind::Knowledge => "knowledge".into(),
            DocKind::Session => shard_key(d.project.as_deref()).into(),
        };
        let json = serde_json::to_string(d).unwrap_or_default();
        Packed {
            shard,
            json: crate::base::text::json_for_script(&json).into(),
        }
    }
}

/// Where one document's JSON is.
#[derive(Debug, Clone, Copy)]
struct Kept {
    /// Index into [`SearchDocs::shards`].
    shard: u32,
    len: u32,
    at: At,
}

#[derive(Debug, Clone, Copy)]
enum At {
    /// At this offset of [`SearchDocs::held`].
    Held(usize),
    /// At this offset of the spill file.
    Spilled(u64),
}

/// Held documents are written to the spill once they are this many bytes
/// (in tests, a few documents: many runs are spilled).
const SPILL_BYTES: usize = if cfg!(test) { 16 << 10 } else { 1 << 20 };

/// Every search document of the site, in the order they were added.
#[derive(Debug)]
pub struct SearchDocs<'s> {
    spill: &'s Spill,
    shards: Vec<Box<str>>,
    shard_index: HashMap<Box<str>, u32>,
    docs: Vec<Kept>,
    /// JSON not written yet (from `docs[pending..]`, at `held[pending_at..]`),
    /// and JSON the spill could not take.
    held: Vec<u8>,
    pending: usize,
    pending_at: usize,
}

impl<'s> SearchDocs<'s> {
    /// No documents yet; they will be kept in `spill` (held in memory
    /// when it has no file).
    pub fn new(spill: &'s Spill) -> SearchDocs<'s> {
        SearchDocs {
            spill,
            shards: Vec::new(),
            shard_index: HashMap::new(),
            docs: Vec::new(),
            held: Vec::new(),
            pending: 0,
            pending_at: 0,
        }
    }

    pub fn reserve(&mut self, more: usize) {
        self.docs.reserve_exact(more);
    }

    pub fn push(&mut self, p: Packed) {
        let shard = match self.shard_index.get(&p.shard) {
            Some(&k) => k,
            None => {
                let k = u32::try_from(self.shards.len()).unwrap_or(u32::MAX);
                self.shards.push(p.shard.clone());
                self.shard_index.insert(p.shard, k);
                k
            }
        };
        // A document over 4 GB cannot be: its texts are cut to a few KB.
        let len = u32::try_from(p.json.len()).unwrap_or(u32::MAX);
        self.docs.push(Kept {
            shard,
            len,
            at: At::Held(self.held.len()),
        });
        self.held
            .extend_from_slice(&p.json.as_bytes()[..len as usize]);
        if self.held.len() - self.pending_at >= SPILL_BYTES {
            self.spill_pending();
        }
    }

    /// Write the pending documents to the spill; kept held if it cannot.
    fn spill_pending(&mut self) {
        if let Some(offset) = self.spill.put(&self.held[self.pending_at..]) {
            for d in &mut self.docs[self.pending..] {
                if let At::Held(at) = d.at {
                    d.at = At::Spilled(offset + (at - self.pending_at) as u64);
                }
            }
            self.held.truncate(self.pending_at);
        }
        self.pending = self.docs.len();
        self.pending_at = self.held.len();
    }

    /// The JSON of `docs`, one after another, each handed to `each`;
    /// neighbours in the spill file are read at once.
    fn each_json(
        &self,
        docs: &[Kept],
        mut each: impl FnMut(&[u8]) -> Result<(), crate::Error>,
    ) -> Result<(), crate::Error> {
        let mut i = 0;
        while i < docs.len() {
            let d = docs[i];
            match d.at {
                At::Held(at) => {
                    let json = self.held.get(at..at + d.len as usize).unwrap_or_default();
                    each(json)?;
                    i += 1;
                }
                At::Spilled(start) => {
                    // The run of documents that follow this one in the file.
                    let mut end = start + u64::from(d.len);
                    let mut run = i + 1;
                    while let Some(At::Spilled(next)) = docs.get(run).map(|n| n.at) {
                        if next != end || end - start >= SPILL_BYTES as u64 {
                            break;
                        }
                        end += u64::from(docs[run].len);
                        run += 1;
                    }
                    let bytes = self.spill.get(start, (end - start) as usize)?;
                    let mut from = 0;
                    for d in &docs[i..run] {
                        let to = from + d.len as usize;
                        each(&bytes[from..to])?;
                        from = to;
                    }
                    i = run;
                }
            }
        }
        Ok(())
    }

    /// Every document again, to rank them here rather than in the page.
    pub fn docs(&self) -> Result<Vec<Doc>, crate::Error> {
        let mut out = Vec::with_capacity(self.docs.len());
        self.each_json(&self.docs, |json| {
            if let Ok(doc) = serde_json::from_slice(json) {
                out.push(doc);
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Index files for the page: `search/index.js` lists the shards; each
    /// shard calls `ccwikiSearch.add([...])`. Knowledge is one shard, each
    /// project's sessions another, split so no shard exceeds about
    /// `shard_bytes`. Each file goes to `emit` as soon as it is complete,
    /// so that the whole index is never in memory at once.
    pub fn write_index(
        &self,
        shard_bytes: usize,
        mut emit: impl FnMut(&str, &[u8]) -> Result<(), crate::Error>,
    ) -> Result<(), crate::Error> {
        let mut groups: std::collections::BTreeMap<&str, Vec<Kept>> = Default::default();
        for d in &self.docs {
            let name = self.shards.get(d.shard as usize).map_or("", |s| &**s);
            groups.entry(name).or_default().push(*d);
        }
        let mut names = Vec::new();
        for (key, docs) in groups {
            let mut part = 0;
            let mut body = Vec::new();
            self.each_json(&docs, |json| {
                if !body.is_empty() && body.len() + json.len() > shard_bytes {
                    let name = shard_name(key, part);
                    emit(&format!("search/{name}.js"), &close_shard(&mut body))?;
                    names.push(name);
                    part += 1;
                }
                body.extend_from_slice(if body.is_empty() {
                    b"ccwikiSearch.add([\n"
                } else {
                    b",\n"
                });
                body.extend_from_slice(json);
                Ok(())
            })?;
            if !body.is_empty() {
                let name = shard_name(key, part);
                emit(&format!("search/{name}.js"), &close_shard(&mut body))?;
                names.push(name);
            }
        }
        let manifest = crate::base::text::json_for_script(
            &serde_json::to_string(&names).unwrap_or_else(|_| "[]".into()),
        );
        emit(
            "search/index.js",
            format!(
                "ccwikiSearch.spec({});\nccwikiSearch.shards({manifest});\n",
                spec::json()
            )
            .as_bytes(),
        )
    }

    /// [`SearchDocs::write_index`]'s files, held.
    pub fn index_files(&self, shard_bytes: usize) -> Result<Vec<(String, Vec<u8>)>, crate::Error> {
        let mut files = Vec::new();
        self.write_index(shard_bytes, |path, bytes| {
            files.push((path.to_string(), bytes.to_vec()));
            Ok(())
        })?;
        Ok(files)
    }
}

fn shard_name(key: &str, part: usize) -> String {
    if part == 0 {
        key.to_string()
    } else {
        format!("{key}-{part}")
    }
}

/// The shard `body` makes, leaving `body` empty.
fn close_shard(body: &mut Vec<u8>) -> Vec<u8> {
    body.extend_from_slice(b"\n]);\n");
    std::mem::take(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(i: usize, project: &str, text: &str) -> Doc {
        Doc {
            kind: DocKind::Session,
            title: format!("session {i}"),
            headings: Vec::new(),
            url: format!("sessions/{i}/index.html"),
            project: Some(project.into()),
            date: None,
            sort: i as i64,
            tools: Vec::new(),
            paths: Vec::new(),
            texts: vec![(format!("#p{i}"), text.into())],
            outputs: Vec::new(),
        }
    }

    /// Documents come back as they went in, in order, whether they were
    /// spilled in runs, held because there was no file, or still pending.
    #[test]
    fn documents_come_back_from_the_spill_and_from_memory() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::in_dir(dir.path()).unwrap();
        let none = Spill::none();
        // Long texts, so that several runs are spilled (and interleaved
        // between shards), and a held remainder.
        let made: Vec<Doc> = (0..300)
            .map(|i| doc(i, ["alpha", "beta"][i % 2], &format!("{i} ").repeat(1500)))
            .collect();
        let mut results = Vec::new();
        for spill in [&spill, &none] {
            let mut docs = SearchDocs::new(spill);
            for d in &made {
                docs.push(Packed::new(d));
            }
            let back = docs.docs().unwrap();
            assert_eq!(back.len(), made.len());
            let urls = |ds: &[Doc]| ds.iter().map(|d| d.url.clone()).collect::<Vec<_>>();
            assert_eq!(urls(&back), urls(&made));
            assert_eq!(back[7].texts, made[7].texts);
            results.push(docs.index_files(1 << 20).unwrap());
        }
        assert!(
            spill.written() > 2 * SPILL_BYTES as u64,
            "{}",
            spill.written()
        );
        assert_eq!(none.written(), 0);
        // The same index either way.
        assert_eq!(results[0], results[1]);
    }
}
