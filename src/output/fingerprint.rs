//! A hash of any serialisable value, without serialising it to text first.
//!
//! Rendering decides whether a page can be kept from the previous build by
//! hashing the page's context. Writing the context out as JSON to hash it
//! cost a tenth of the render phase (mostly escaping strings); this feeds
//! the values straight into the hasher instead. Every value is preceded by
//! a tag and strings by their length, so different values make different
//! streams (field names are hashed too, so an omitted field cannot be
//! mistaken for another).

use serde::ser::{self, Serialize};
use std::hash::Hasher;

/// Hash `value` into `hasher`.
pub fn hash_into<T: Serialize + ?Sized>(value: &T, hasher: &mut impl Hasher) -> bool {
    let mut f = Fingerprint {
        hasher,
        buf: Vec::with_capacity(BUF),
    };
    let ok = value.serialize(&mut f).is_ok();
    f.flush();
    ok
}

/// Small writes are gathered and handed to the hasher in blocks: streaming
/// hashers are slow one byte at a time.
const BUF: usize = 8 << 10;

struct Fingerprint<'h, H: Hasher> {
    hasher: &'h mut H,
    buf: Vec<u8>,
}

#[derive(Debug)]
struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("value cannot be hashed")
    }
}

impl std::error::Error for Never {}

impl ser::Error for Never {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Never
    }
}

// Tags: one byte before each value, so that `None` and `""`, a unit and an
// empty sequence, a sequence's end and its next element never collide.
const NONE: u8 = 0;
const SOME: u8 = 1;
const BOOL: u8 = 2;
const INT: u8 = 3;
const FLOAT: u8 = 4;
const STR: u8 = 5;
const BYTES: u8 = 6;
const UNIT: u8 = 7;
const SEQ: u8 = 8;
const MAP: u8 = 9;
const STRUCT: u8 = 10;
const VARIANT: u8 = 11;
const END: u8 = 12;

impl<H: Hasher> Fingerprint<'_, H> {
    fn flush(&mut self) {
        self.hasher.write(&self.buf);
        self.buf.clear();
    }

    fn write(&mut self, bytes: &[u8]) {
        if self.buf.len() + bytes.len() > BUF {
            self.flush();
        }
        if bytes.len() > BUF / 2 {
            self.hasher.write(bytes);
        } else {
            self.buf.extend_from_slice(bytes);
        }
    }

    fn tag(&mut self, t: u8) {
        self.write(&[t]);
    }

    fn str(&mut self, s: &str) {
        self.write(&(s.len() as u64).to_le_bytes());
        self.write(s.as_bytes());
    }
}

impl<'a, 'h, H: Hasher> ser::Serializer for &'a mut Fingerprint<'h, H> {
    type Ok = ();
    type Error = Never;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Result<(), Never> {
        self.tag(BOOL);
        self.write(&[v as u8]);
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Never> {
        self.serialize_i128(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Never> {
        self.serialize_i128(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Never> {
        self.serialize_i128(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Never> {
        self.serialize_i128(v.into())
    }
    fn serialize_i128(self, v: i128) -> Result<(), Never> {
        self.tag(INT);
        self.write(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Never> {
        self.serialize_i128(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Never> {
        self.serialize_i128(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Never> {
        self.serialize_i128(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Never> {
        self.serialize_i128(v.into())
    }
    fn serialize_u128(self, v: u128) -> Result<(), Never> {
        self.tag(INT);
        self.write(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Never> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Never> {
        self.tag(FLOAT);
        self.write(&v.to_bits().to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Never> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Never> {
        self.tag(STR);
        self.str(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Never> {
        self.tag(BYTES);
        self.write(&(v.len() as u64).to_le_bytes());
        self.write(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Never> {
        self.tag(NONE);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Never> {
        self.tag(SOME);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Never> {
        self.tag(UNIT);
        Ok(())
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<(), Never> {
        self.tag(UNIT);
        self.str(name);
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Never> {
        self.tag(VARIANT);
        self.str(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Never> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Never> {
        self.tag(VARIANT);
        self.str(variant);
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Never> {
        self.tag(SEQ);
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Never> {
        self.tag(SEQ);
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Never> {
        self.tag(SEQ);
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Never> {
        self.tag(VARIANT);
        self.str(variant);
        self.tag(SEQ);
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Never> {
        self.tag(MAP);
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Never> {
        self.tag(STRUCT);
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Self, Never> {
        self.tag(VARIANT);
        self.str(variant);
        self.tag(STRUCT);
        Ok(self)
    }
}

/// Elements follow one another, each tagged; `END` closes the sequence.
macro_rules! elements {
    ($($trait:ident :: $method:ident),*) => {$(
        impl<H: Hasher> ser::$trait for &mut Fingerprint<'_, H> {
            type Ok = ();
            type Error = Never;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Never> {
                value.serialize(&mut **self)
            }
            fn end(self) -> Result<(), Never> {
                self.tag(END);
                Ok(())
            }
        }
    )*};
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl<H: Hasher> ser::SerializeMap for &mut Fingerprint<'_, H> {
    type Ok = ();
    type Error = Never;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Never> {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Never> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Never> {
        self.tag(END);
        Ok(())
    }
}

/// Fields are hashed with their names: a skipped field changes the stream.
macro_rules! fields {
    ($($trait:ident),*) => {$(
        impl<H: Hasher> ser::$trait for &mut Fingerprint<'_, H> {
            type Ok = ();
            type Error = Never;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Never> {
                self.str(key);
                value.serialize(&mut **self)
            }
            fn skip_field(&mut self, key: &'static str) -> Result<(), Never> {
                self.tag(NONE);
                self.str(key);
                Ok(())
            }
            fn end(self) -> Result<(), Never> {
                self.tag(END);
                Ok(())
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use std::collections::hash_map::DefaultHasher;

    fn fp<T: Serialize>(v: &T) -> u64 {
        let mut h = DefaultHasher::new();
        assert!(hash_into(v, &mut h));
        h.finish()
    }

    #[derive(Serialize)]
    struct Page<'a> {
        title: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        time: Option<&'a str>,
        text: &'a str,
        tags: Vec<&'a str>,
    }

    #[test]
    fn equal_values_hash_equal_and_any_change_shows() {
        let base = Page {
            title: "a",
            time: None,
            text: "b",
            tags: vec!["x", "y"],
        };
        let same = Page {
            title: "a",
            time: None,
            text: "b",
            tags: vec!["x", "y"],
        };
        assert_eq!(fp(&base), fp(&same));
        let variants = [
            Page {
                title: "b",
                ..same_as(&base)
            },
            Page {
                time: Some("a"),
                title: "",
                ..same_as(&base)
            },
            Page {
                text: "",
                tags: vec!["b", "x", "y"],
                ..same_as(&base)
            },
            Page {
                tags: vec!["xy"],
                ..same_as(&base)
            },
            Page {
                tags: vec!["x", "y", ""],
                ..same_as(&base)
            },
            Page {
                title: "ab",
                text: "",
                ..same_as(&base)
            },
        ];
        let mut seen = vec![fp(&base)];
        for v in &variants {
            let h = fp(v);
            assert!(!seen.contains(&h), "collision");
            seen.push(h);
        }
        // Options, strings and sequences do not run into one another.
        assert_ne!(fp(&(None::<&str>, "a")), fp(&(Some(""), "a")));
        assert_ne!(
            fp(&(vec!["a"], vec!["b"])),
            fp(&(vec!["a", "b"], Vec::<&str>::new()))
        );
    }

    fn same_as<'a>(p: &Page<'a>) -> Page<'a> {
        Page {
            title: p.title,
            time: p.time,
            text: p.text,
            tags: p.tags.clone(),
        }
    }
}
