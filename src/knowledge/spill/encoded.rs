//! Turns read back and not yet decoded: a session page's turns are
//! decoded in place ([`Encoded::turns`]), each text borrowed from the
//! bytes read rather than allocated and copied.

use super::{stored_run, zeroed_prefix, Piece, Spill, Turns, CHUNK};
use crate::knowledge::model::{TextRef, Turn};
use serde::Deserialize;
use std::ops::Range;

/// Some turns of a [`Turns`] as read back: the bytes of the stored chunks
/// that hold them, and the held ones lent.
pub struct Encoded<'t> {
    spill: &'t Spill,
    /// The chunks read, one after another (past their end: what the
    /// buffer held before, never read).
    bytes: Vec<u8>,
    parts: Vec<Part<'t>>,
    count: usize,
}

enum Part<'t> {
    Held(&'t [Turn]),
    /// The next `len` bytes: a chunk of `turns` turns, of which those at
    /// `wanted` are.
    Stored {
        len: usize,
        turns: usize,
        wanted: Range<usize>,
    },
}

impl Spill {
    /// Read the chunks that hold the turns at `range` (indexes into the
    /// whole list), to be decoded by the caller.
    pub fn read_range<'t>(
        &'t self,
        turns: &'t Turns,
        range: Range<usize>,
    ) -> Result<Encoded<'t>, crate::Error> {
        let mut parts = Vec::new();
        // Stored pieces one after the other in a file are read at once:
        // a page's turns are a dozen chunks, and the system calls of a
        // read for each were a tenth of the time taken to read them back.
        let mut reads: Vec<(u32, u64, usize)> = Vec::new();
        let (mut k, mut start) = turns.piece_of(range.start);
        while let Some((_, first)) = turns.pieces.get(k).filter(|_| start < range.end) {
            let n = match first {
                Piece::Held(_) => 1,
                Piece::Stored { shelf, offset, .. } => {
                    stored_run(&turns.pieces[k..], *shelf, *offset)
                }
            };
            let mut run = 0;
            for (end, piece) in turns.pieces[k..k + n].iter() {
                if start >= range.end {
                    break;
                }
                let wanted = range.start.saturating_sub(start)..range.end.min(*end) - start;
                parts.push(match piece {
                    Piece::Held(t) => Part::Held(&t[wanted]),
                    Piece::Stored { bytes, turns, .. } => {
                        run += *bytes as usize;
                        Part::Stored {
                            len: *bytes as usize,
                            turns: *turns as usize,
                            wanted,
                        }
                    }
                });
                start = *end;
            }
            if let Piece::Stored { shelf, offset, .. } = first {
                reads.push((*shelf, *offset, run));
            }
            k += n;
        }
        // The thread's buffer when it is free (given back when these are
        // dropped), else a new one.
        let free = CHUNK.try_with(|c| c.try_borrow_mut().map(|mut b| std::mem::take(&mut *b)));
        let mut bytes = free.ok().and_then(Result::ok).unwrap_or_default();
        let buf = zeroed_prefix(&mut bytes, reads.iter().map(|r| r.2).sum());
        let mut at = 0;
        for (shelf, offset, len) in reads {
            self.read_from(shelf, &mut buf[at..at + len], offset)?;
            at += len;
        }
        Ok(Encoded {
            spill: self,
            bytes,
            parts,
            count: range.len(),
        })
    }
}

impl Encoded<'_> {
    /// The turns, their texts borrowed from the bytes read (or from the
    /// held turns).
    pub fn turns(&self) -> Result<Vec<Turn<TextRef<'_>>>, crate::Error> {
        self.decode(Turn::borrowed)
    }

    /// The turns, owned.
    pub fn owned(&self) -> Result<Vec<Turn>, crate::Error> {
        self.decode(Turn::clone)
    }

    /// Each turn decoded from its chunk as a `T`, or, held, made one by `lend`.
    fn decode<'s, T: Deserialize<'s>>(
        &'s self,
        lend: impl Fn(&'s Turn) -> T,
    ) -> Result<Vec<T>, crate::Error> {
        let mut out = Vec::with_capacity(self.count);
        let mut at = 0;
        for part in &self.parts {
            match part {
                Part::Held(held) => out.extend(held.iter().map(&lend)),
                Part::Stored { len, turns, wanted } => {
                    let chunk = &self.bytes[at..at + len];
                    self.spill
                        .decode_chunk(chunk, *turns, wanted.end, |i, turn| {
                            if i >= wanted.start {
                                out.push(turn);
                            }
                        })?;
                    at += len;
                }
            }
        }
        Ok(out)
    }
}

impl Drop for Encoded<'_> {
    fn drop(&mut self) {
        let bytes = std::mem::take(&mut self.bytes);
        // Kept when it is the larger (a thread's other reads may have
        // grown a buffer of their own meanwhile); nothing when the thread
        // is ending or the buffer is in use.
        let _ = CHUNK.try_with(|chunk| {
            if let Ok(mut chunk) = chunk.try_borrow_mut() {
                if chunk.capacity() < bytes.capacity() {
                    *chunk = bytes;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::model::{Block, CompactKind, Edit, Text, ToolCall};
    use proptest::prelude::*;

    /// A turn of each kind by `i`, options given or not, texts of any length
    /// (a chunk holds from one to hundreds of them).
    fn turn(i: usize) -> Turn {
        let text = |what: &str| Text::test(&format!("{what} {i} é {}", "x".repeat(i * 53 % 3000)));
        let maybe = |what: &str| (!i.is_multiple_of(3)).then(|| text(what));
        match i % 5 {
            0 => Turn::Prompt {
                ts: None,
                text: text("prompt"),
            },
            1 => Turn::Assistant {
                ts: None,
                model: maybe("model"),
                blocks: vec![
                    Block::Text(text("answer")),
                    Block::Tool(ToolCall {
                        name: text("Edit"),
                        arg: text("src/a.rs"),
                        input: text("input"),
                        result: maybe("result"),
                        result_bytes: i as u64,
                        error: i.is_multiple_of(2),
                        launches: (i % 4 == 1).then_some(i as u64),
                        edits: (0..i % 3)
                            .map(|k| Edit {
                                old: text(&format!("old {k}")),
                                new: text(&format!("new {k}")),
                            })
                            .collect(),
                    }),
                ],
            },
            2 => Turn::Command {
                ts: None,
                name: text("/cmd"),
                args: text("args"),
            },
            3 => Turn::CommandOutput {
                text: text("output"),
            },
            _ => Turn::Compaction {
                ts: None,
                kind: if i.is_multiple_of(2) {
                    CompactKind::Full
                } else {
                    CompactKind::Micro
                },
                summary: maybe("summary"),
            },
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any range of turns, stored in chunks or held (before, between and
        /// after the stored ones), reads back as the turns were: borrowed
        /// and owned alike.
        #[test]
        fn a_range_read_back_is_the_turns_borrowed_or_owned(
            held_before in 0usize..120,
            stored in 0usize..400,
            held_after in 0usize..40,
            from in 0usize..600,
            len in 0usize..600,
        ) {
            let dir = tempfile::tempdir().expect("temp dir");
            let spill = Spill::in_dir(dir.path()).expect("spill");
            let n = held_before + stored + held_after;
            let all: Vec<Turn> = (0..n).map(turn).collect();
            let mut turns = Turns::from(all[held_before..held_before + stored].to_vec());
            spill.stow(&mut turns);
            turns.prepend(Turns::from(all[..held_before].to_vec()));
            turns.append(Turns::from(all[held_before + stored..].to_vec()));
            let start = from.min(n);
            let range = start..(start + len).min(n);
            let read = spill.read_range(&turns, range.clone()).expect("read");
            let want: Vec<Turn<TextRef<'_>>> = all[range.clone()].iter().map(Turn::borrowed).collect();
            prop_assert_eq!(read.turns().expect("borrowed"), want);
            prop_assert_eq!(read.owned().expect("owned"), all[range].to_vec());
        }
    }

    /// A read made while the thread's buffer is in use (none is, today)
    /// takes a buffer of its own rather than failing.
    #[test]
    fn a_read_while_the_threads_buffer_is_in_use_takes_its_own() {
        let dir = tempfile::tempdir().expect("temp dir");
        let spill = Spill::in_dir(dir.path()).expect("spill");
        let all: Vec<Turn> = (0..30).map(turn).collect();
        let mut turns = Turns::from(all.clone());
        spill.stow(&mut turns);
        super::CHUNK.with_borrow_mut(|_in_use| {
            let read = spill.read_range(&turns, 0..30).expect("read");
            assert_eq!(read.owned().expect("owned"), all);
        });
    }

    /// A stored chunk damaged on disk is an error naming the spill, for
    /// the borrowed read as for the owned one.
    #[test]
    fn a_damaged_chunk_read_borrowed_is_an_error() {
        use std::io::{Seek, Write};
        let dir = tempfile::tempdir().expect("temp dir");
        let spill = Spill::in_dir(dir.path()).expect("spill");
        let mut turns = Turns::from((0..20).map(turn).collect::<Vec<_>>());
        spill.stow(&mut turns);
        let mut file = spill.file.as_ref().expect("a file");
        file.seek(std::io::SeekFrom::Start(0)).expect("seek");
        file.write_all(&[0xff; 64]).expect("damage");
        let read = spill.read_range(&turns, 0..20).expect("the bytes read");
        let e = read.turns().expect_err("damaged");
        assert!(
            e.to_string().contains("temporary file of extracted turns"),
            "{e}"
        );
    }
}
