//! A transcript line read into serde types by skimming: what the types do
//! not keep is crossed 64 bytes at a time.
//!
//! Most of a transcript's bytes are never read: a tool result's copy in
//! `toolUseResult` (about 40 % of them) and the output kept raw in a
//! `tool_result` block (about as much). serde_json crosses such a value
//! eight bytes at a time, stopping at every escape, and tool output holds
//! one every 20 bytes or so. Here the structure is walked by hand and a
//! string is crossed a block of 64 bytes at a time: SIMD compares give one
//! bit a byte for quotes, backslashes and control characters, and bit
//! arithmetic finds which bytes the backslashes escape (37 % less time
//! than serde_json on real lines). Every scalar a type does keep (a string
//! with escapes, a number) is decoded by serde_json itself.
//!
//! The walk accepts only what serde_json accepts, and gives the same values:
//! it checks the same grammar where it skips, and refuses whatever it does
//! not handle (a key with an escape, deep nesting, deserializer methods the
//! records do not use). [`from_slice`] falls back to serde_json on a
//! refusal, which then gives the same value or the precise error. Property
//! tests hold the two side by side on mutated lines.
//!
//! The walk reads bytes, and checks as UTF-8 only what a type keeps: the
//! bytes it skips are never checked (checking every line whole took 2–3 %
//! of a cold build's CPU). A kept string that is not valid UTF-8 is handed
//! over with its invalid bytes replaced (U+FFFD), as if the line had been
//! read lossily; a [`Raw`] value stays bytes until its reader decodes
//! what it keeps.

use serde::de::{self, DeserializeSeed, Visitor};
use serde::Deserialize;
use std::fmt;

mod strings;

/// Parse `bytes` as one JSON value of type `T`: skimmed when the walk
/// accepts it, else by serde_json (with its error on a bad line; it
/// refuses invalid UTF-8 in any string it reads).
pub fn from_slice<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, serde_json::Error> {
    match skim(bytes) {
        Ok(value) => Ok(value),
        Err(Refused) => serde_json::from_slice(bytes),
    }
}

/// Parse `bytes` by skimming only; [`Refused`] where serde_json must decide.
fn skim<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, Refused> {
    let mut cur = Cursor {
        bytes,
        pos: 0,
        depth: 0,
    };
    let value = T::deserialize(&mut cur)?;
    cur.space();
    match cur.pos == bytes.len() {
        true => Ok(value),
        false => Err(Refused),
    }
}

/// The text of `bytes`, invalid UTF-8 replaced (U+FFFD).
pub(super) fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Hand a string's body (no escapes in it) to `visitor`: borrowed where
/// it is UTF-8, else as its lossy text.
fn visit_text<'de, V: Visitor<'de>>(body: &'de [u8], visitor: V) -> Result<V::Value, Refused> {
    // Most kept strings are short and ASCII (ids, times, names: 1.8
    // million of 1 GB of transcripts), and std's check, which short ones
    // get, cost about 100 instructions a call; a test of a few words
    // costs a handful.
    let text = match body.len() <= 32 && body.is_ascii() {
        // SAFETY: ASCII, as just checked, is UTF-8.
        true => Ok(unsafe { std::str::from_utf8_unchecked(body) }),
        false => simdutf8::basic::from_utf8(body),
    };
    match text {
        Ok(text) => visitor.visit_borrowed_str(text),
        Err(_) => visitor.visit_string(lossy(body)),
    }
}

/// A value's JSON text, borrowed from the line as bytes (not checked as
/// UTF-8: see the module's notes): what `&RawValue` is for serde_json,
/// readable by the skim as well (it cannot make a `&RawValue`).
///
/// Deserialized through `deserialize_newtype_struct`: the skim answers with
/// the value's text, serde_json with itself, read as a `&RawValue`. Only
/// for values these two read directly: a deserializer that buffers (serde's
/// `flatten`, untagged enums) or one that hands a string for a newtype (a
/// map key) would give a string's text without its quotes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Raw<'a>(&'a [u8]);

/// The name the skim recognises a [`Raw`] by.
const RAW: &str = "$ccwiki::skim::Raw";

impl<'a> Raw<'a> {
    /// The value's JSON text, exactly as in the line.
    pub fn bytes(self) -> &'a [u8] {
        self.0
    }

    /// The value's JSON text, invalid UTF-8 replaced (U+FFFD).
    pub fn text(self) -> std::borrow::Cow<'a, str> {
        String::from_utf8_lossy(self.0)
    }
}

impl fmt::Debug for Raw<'_> {
    /// As its text: a value read from a line and from its lossy text
    /// look the same.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Raw").field(&self.text()).finish()
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Raw<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_bytes<E: de::Error>(self, json: &'de [u8]) -> Result<Raw<'de>, E> {
                Ok(Raw(json))
            }
            fn visit_newtype_struct<D2: de::Deserializer<'de>>(
                self,
                d: D2,
            ) -> Result<Raw<'de>, D2::Error> {
                <&serde_json::value::RawValue>::deserialize(d).map(|raw| Raw(raw.get().as_bytes()))
            }
        }
        d.deserialize_newtype_struct(RAW, V)
    }
}

/// The skim does not decide this line: serde_json must.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Refused;

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("left to serde_json")
    }
}

impl std::error::Error for Refused {}

impl de::Error for Refused {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Refused
    }
}

/// Containers deserialized inside one another at most (serde_json allows
/// 128); deeper is refused, so a hostile line costs no stack.
const MAX_DEPTH: u32 = 100;

/// Containers skipped inside one another at most: their kinds are kept as
/// the bits of one word.
const MAX_SKIP_DEPTH: u32 = 64;

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    depth: u32,
}

impl<'a> Cursor<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    /// JSON's whitespace: space, tab, line feed, carriage return.
    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Result<(), Refused> {
        match self.peek() == Some(byte) {
            true => {
                self.pos += 1;
                Ok(())
            }
            false => Err(Refused),
        }
    }

    /// Past `word` (`true`, `false`, `null`).
    fn literal(&mut self, word: &[u8]) -> Result<(), Refused> {
        match self.bytes()[self.pos..].starts_with(word) {
            true => {
                self.pos += word.len();
                Ok(())
            }
            false => Err(Refused),
        }
    }

    /// Past a string whose opening quote is at `pos`; true when it holds an
    /// escape (see [`strings::end`]).
    fn string(&mut self) -> Result<bool, Refused> {
        self.eat(b'"')?;
        let (end, escaped) = strings::end(self.bytes(), self.pos)?;
        self.pos = end;
        Ok(escaped)
    }

    /// Past a number, checked against JSON's grammar.
    fn number(&mut self) -> Result<(), Refused> {
        let bytes = self.bytes();
        let digits = |at: usize| {
            bytes[at..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count()
        };
        let mut at = self.pos;
        if bytes.get(at) == Some(&b'-') {
            at += 1;
        }
        match bytes.get(at) {
            Some(b'0') => at += 1,
            Some(b'1'..=b'9') => at += digits(at),
            _ => return Err(Refused),
        }
        if bytes.get(at) == Some(&b'.') {
            at += 1;
            match digits(at) {
                0 => return Err(Refused),
                n => at += n,
            }
        }
        if let Some(b'e' | b'E') = bytes.get(at) {
            at += 1;
            if let Some(b'+' | b'-') = bytes.get(at) {
                at += 1;
            }
            match digits(at) {
                0 => return Err(Refused),
                n => at += n,
            }
        }
        self.pos = at;
        Ok(())
    }

    /// Past one object key and its colon: the key's bytes as written
    /// (between the quotes), and whether it holds an escape.
    fn key(&mut self) -> Result<(&'a [u8], bool), Refused> {
        self.space();
        let start = self.pos;
        let escaped = self.string()?;
        let key = &self.bytes[start + 1..self.pos - 1];
        self.space();
        self.eat(b':')?;
        Ok((key, escaped))
    }

    /// Past one value of any shape, nested containers walked in a loop.
    fn skip(&mut self) -> Result<(), Refused> {
        // Bit i of `objects` is set when the container at depth i+1 is an
        // object.
        let (mut objects, mut depth) = (0u64, 0u32);
        loop {
            self.space();
            match self.peek().ok_or(Refused)? {
                b'"' => {
                    self.string()?;
                }
                open @ (b'{' | b'[') => {
                    if depth == MAX_SKIP_DEPTH {
                        return Err(Refused);
                    }
                    self.pos += 1;
                    self.space();
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.pos += 1;
                    } else {
                        objects = objects << 1 | u64::from(open == b'{');
                        depth += 1;
                        if open == b'{' {
                            self.key()?;
                        }
                        continue;
                    }
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return Err(Refused),
            }
            // A value is done: close what it ends, or go on to the next one.
            loop {
                if depth == 0 {
                    return Ok(());
                }
                self.space();
                let object = objects & 1 == 1;
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if object {
                            self.key()?;
                        }
                        break;
                    }
                    Some(b'}') if object => {}
                    Some(b']') if !object => {}
                    _ => return Err(Refused),
                }
                self.pos += 1;
                objects >>= 1;
                depth -= 1;
            }
        }
    }

    /// Deserialize the container that starts at `pos` (its opening
    /// bracket is there) with `visit`, which reads its members; a visitor
    /// that stops early leaves the container to end right there.
    fn container<T>(
        &mut self,
        close: u8,
        visit: impl FnOnce(&mut Members<'_, 'a>) -> Result<T, Refused>,
    ) -> Result<T, Refused> {
        if self.depth == MAX_DEPTH {
            return Err(Refused);
        }
        self.depth += 1;
        self.pos += 1;
        let mut members = Members {
            cur: &mut *self,
            close,
            first: true,
            done: false,
        };
        let value = visit(&mut members)?;
        if !members.done {
            self.space();
            self.eat(close)?;
        }
        self.depth -= 1;
        Ok(value)
    }
}

/// Decode `json` (one scalar, exactly) with serde_json; a string that is
/// not valid UTF-8 from its lossy text.
fn by_serde_json<'de, V: Visitor<'de>>(json: &'de [u8], visitor: V) -> Result<V::Value, Refused> {
    let Ok(json) = simdutf8::basic::from_utf8(json) else {
        let text: String = serde_json::from_str(&lossy(json)).map_err(|_| Refused)?;
        return visitor.visit_string(text);
    };
    let mut de = serde_json::Deserializer::from_str(json);
    let value = de::Deserializer::deserialize_any(&mut de, visitor).map_err(|_| Refused)?;
    de.end().map_err(|_| Refused)?;
    Ok(value)
}

/// Methods for one kind of value, answered as `deserialize_any` does (as
/// serde_json's are) when the value starts as that kind does, else refused
/// (serde_json then gives its error).
macro_rules! of_kind {
    ($($method:ident => $first:pat,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
            self.space();
            match self.peek() {
                Some($first) => self.deserialize_any(visitor),
                _ => Err(Refused),
            }
        }
    )*};
}

/// Methods the records never call: refused, so serde_json decides.
macro_rules! refuse {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Refused> {
            Err(Refused)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Cursor<'de> {
    type Error = Refused;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        self.space();
        let start = self.pos;
        match self.peek().ok_or(Refused)? {
            b'{' => self.deserialize_map(visitor),
            b'[' => self.container(b']', |items| visitor.visit_seq(items)),
            b'"' => {
                let escaped = self.string()?;
                let json = &self.bytes[start..self.pos];
                match escaped {
                    false => visit_text(&json[1..json.len() - 1], visitor),
                    true => by_serde_json(json, visitor),
                }
            }
            b't' => {
                self.literal(b"true")?;
                visitor.visit_bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                visitor.visit_bool(false)
            }
            b'n' => {
                self.literal(b"null")?;
                visitor.visit_unit()
            }
            b'-' | b'0'..=b'9' => {
                self.number()?;
                by_serde_json(&self.bytes[start..self.pos], visitor)
            }
            _ => Err(Refused),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        self.space();
        if self.peek() != Some(b'{') {
            return Err(Refused);
        }
        self.container(b'}', |entries| visitor.visit_map(entries))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Refused> {
        self.deserialize_map(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        self.space();
        match self.peek() {
            Some(b'n') => {
                self.literal(b"null")?;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        self.skip()?;
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Refused> {
        if name != RAW {
            return visitor.visit_newtype_struct(self);
        }
        self.space();
        let start = self.pos;
        self.skip()?;
        visitor.visit_borrowed_bytes(&self.bytes[start..self.pos])
    }

    of_kind! {
        deserialize_bool => b't' | b'f',
        deserialize_i8 => b'-' | b'0'..=b'9',
        deserialize_i16 => b'-' | b'0'..=b'9',
        deserialize_i32 => b'-' | b'0'..=b'9',
        deserialize_i64 => b'-' | b'0'..=b'9',
        deserialize_u8 => b'-' | b'0'..=b'9',
        deserialize_u16 => b'-' | b'0'..=b'9',
        deserialize_u32 => b'-' | b'0'..=b'9',
        deserialize_u64 => b'-' | b'0'..=b'9',
        deserialize_f32 => b'-' | b'0'..=b'9',
        deserialize_f64 => b'-' | b'0'..=b'9',
        deserialize_str => b'"',
        deserialize_string => b'"',
        deserialize_identifier => b'"',
        deserialize_unit => b'n',
        deserialize_seq => b'[',
    }

    refuse! {
        deserialize_char deserialize_bytes deserialize_byte_buf
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: V,
    ) -> Result<V::Value, Refused> {
        Err(Refused)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Refused> {
        Err(Refused)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> Result<V::Value, Refused> {
        Err(Refused)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Refused> {
        Err(Refused)
    }
}

/// An object key with no escape: a struct's field names are matched
/// against its bytes, never checked as UTF-8 (a check of each key cost
/// as much as the whole line's had); anything else reads it as text.
struct Key<'de>(&'de [u8]);

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = Refused;

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        visitor.visit_borrowed_bytes(self.0)
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        visit_text(self.0, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum ignored_any
    }
}

/// The members of an array or an object being deserialized.
struct Members<'c, 'de> {
    cur: &'c mut Cursor<'de>,
    /// `]` or `}`.
    close: u8,
    first: bool,
    /// The closing bracket is read.
    done: bool,
}

impl Members<'_, '_> {
    /// Past the comma before the next member: false at the closing
    /// bracket (read then).
    fn next(&mut self) -> Result<bool, Refused> {
        let cur = &mut *self.cur;
        cur.space();
        if self.done {
            return Err(Refused);
        }
        if cur.peek() == Some(self.close) {
            cur.pos += 1;
            self.done = true;
            return Ok(false);
        }
        if !std::mem::take(&mut self.first) {
            cur.eat(b',')?;
        }
        Ok(true)
    }
}

impl<'de> de::MapAccess<'de> for &mut Members<'_, 'de> {
    type Error = Refused;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Refused> {
        if !self.next()? {
            return Ok(None);
        }
        match self.cur.key()? {
            // A key with an escape: serde_json decodes it.
            (_, true) => Err(Refused),
            (key, false) => seed.deserialize(Key(key)).map(Some),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Refused> {
        seed.deserialize(&mut *self.cur)
    }
}

impl<'de> de::SeqAccess<'de> for &mut Members<'_, 'de> {
    type Error = Refused;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Refused> {
        if !self.next()? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.cur).map(Some)
    }
}

#[cfg(test)]
mod tests;
