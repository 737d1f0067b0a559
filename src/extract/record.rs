//! The shape of one transcript line, as far as the wiki needs it.
//!
//! Every field is optional and lenient. Fields the wiki never shows
//! (thinking text, tool output, snapshots, progress data) are not declared,
//! so serde skips them without building values.

use super::jsonl::{Count, Flag, Str};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::fmt;

/// One line of a transcript.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Record<'a> {
    #[serde(rename = "type")]
    pub kind: Str,
    pub subtype: Str,
    pub uuid: Str,
    pub parent_uuid: Str,
    pub session_id: Str,
    pub timestamp: Str,
    pub cwd: Str,
    pub git_branch: Str,
    pub version: Str,
    pub entrypoint: Str,
    pub agent_id: Str,
    pub is_sidechain: Flag,
    pub is_meta: Flag,
    pub is_compact_summary: Flag,
    pub is_api_error_message: Flag,
    /// `system` records carry their text here.
    pub content: Str,
    pub summary: Str,
    pub leaf_uuid: Str,
    pub ai_title: Str,
    pub custom_title: Str,
    /// Kept raw: parsed only for user and assistant lines.
    #[serde(borrow)]
    pub message: Option<&'a RawValue>,
}

/// `message` of a user or assistant line.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Message {
    pub id: Str,
    pub model: Str,
    pub content: Content,
    pub usage: Option<RawUsage>,
}

/// `message.usage`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawUsage {
    pub input_tokens: Count,
    pub output_tokens: Count,
    pub cache_read_input_tokens: Count,
    pub cache_creation_input_tokens: Count,
}

/// `message.content`: a string in older lines, an array of blocks in newer ones.
#[derive(Debug, Default)]
pub enum Content {
    #[default]
    None,
    Text(String),
    Blocks(Vec<RawBlock>),
}

/// One content block. Only the fields the wiki uses are read.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RawBlock {
    #[serde(rename = "type")]
    pub kind: Str,
    pub text: Str,
    pub name: Str,
    pub input: Option<ToolInput>,
}

/// The arguments of a tool call that say what it did.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ToolInput {
    pub file_path: Str,
    pub notebook_path: Str,
    pub path: Str,
    pub command: Str,
    pub pattern: Str,
    pub url: Str,
    pub query: Str,
    pub description: Str,
    pub subagent_type: Str,
    pub skill: Str,
    pub prompt: Str,
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content blocks")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Content, E> {
                Ok(Content::Text(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Content, E> {
                Ok(Content::Text(v))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Content, E> {
                Ok(Content::None)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<BlockOrText>()? {
                    if let Some(b) = b.0 {
                        blocks.push(b);
                    }
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Content, A::Error> {
                // A single block where an array was expected.
                let b = RawBlock::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Content::Blocks(vec![b]))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Content, E> {
                Ok(Content::None)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Content, E> {
                Ok(Content::None)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Content, E> {
                Ok(Content::None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Content, E> {
                Ok(Content::None)
            }
        }
        d.deserialize_any(V)
    }
}

/// An array element that is a block object, or a bare string taken as text.
struct BlockOrText(Option<RawBlock>);

impl<'de> Deserialize<'de> for BlockOrText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BlockOrText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<BlockOrText, A::Error> {
                let b = RawBlock::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(BlockOrText(Some(b)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<BlockOrText, E> {
                Ok(BlockOrText(Some(RawBlock {
                    kind: Str::from_value("text"),
                    text: Str::from_value(v),
                    ..RawBlock::default()
                })))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BlockOrText, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(BlockOrText(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<BlockOrText, E> {
                Ok(BlockOrText(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<BlockOrText, E> {
                Ok(BlockOrText(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<BlockOrText, E> {
                Ok(BlockOrText(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<BlockOrText, E> {
                Ok(BlockOrText(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<BlockOrText, E> {
                Ok(BlockOrText(None))
            }
        }
        d.deserialize_any(V)
    }
}

impl Str {
    /// A present string value.
    pub fn from_value(v: &str) -> Str {
        super::jsonl::Loose(Some(v.to_string()))
    }
}
