//! [`SmallSet`]: a sorted set kept in one vector.
//!
//! A session's models, branches, versions and files hold one to a few
//! entries each; a `BTreeSet` allocates a node of several hundred bytes
//! for the first. With 100,000 sessions that was a fifth of a build's
//! memory. Iteration order, equality and the serialised form (a sequence
//! in order) are those of a `BTreeSet`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A set of `T` in order, without repeats, in one vector.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SmallSet<T>(Vec<T>);

impl<T> Default for SmallSet<T> {
    fn default() -> Self {
        SmallSet(Vec::new())
    }
}

impl<T: Ord> SmallSet<T> {
    pub fn new() -> Self {
        SmallSet(Vec::new())
    }

    /// Add `value`; false when it was there already.
    pub fn insert(&mut self, value: T) -> bool {
        match self.0.binary_search(&value) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, value);
                true
            }
        }
    }

    pub fn contains(&self, value: &T) -> bool {
        self.0.binary_search(value).is_ok()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sorted, repeats dropped (the first of equal values kept).
    fn settle(&mut self) {
        self.0.sort();
        self.0.dedup();
    }
}

impl<T: Ord> Extend<T> for SmallSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, values: I) {
        // All at once: one sort, not one insertion each (a session may
        // touch thousands of files).
        self.0.extend(values);
        self.settle();
    }
}

impl<T: Ord> FromIterator<T> for SmallSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(values: I) -> Self {
        let mut s = SmallSet(values.into_iter().collect());
        s.settle();
        s
    }
}

impl<T> IntoIterator for SmallSet<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a SmallSet<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T: Serialize> Serialize for SmallSet<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de, T: Deserialize<'de> + Ord> Deserialize<'de> for SmallSet<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<T>::deserialize(d)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    proptest::proptest! {
        /// Whatever is inserted and extended, in any order, the set reads
        /// and serialises as a `BTreeSet` of the same values.
        #[test]
        fn behaves_as_a_btreeset(
            inserts in proptest::collection::vec(0u8..20, 0..30),
            more in proptest::collection::vec(0u8..20, 0..30),
        ) {
            let mut small = SmallSet::new();
            let mut tree = BTreeSet::new();
            for v in &inserts {
                proptest::prop_assert_eq!(small.insert(*v), tree.insert(*v));
            }
            small.extend(more.iter().copied());
            tree.extend(more.iter().copied());
            proptest::prop_assert!(small.iter().eq(tree.iter()));
            proptest::prop_assert_eq!(small.len(), tree.len());
            for v in 0u8..20 {
                proptest::prop_assert_eq!(small.contains(&v), tree.contains(&v));
            }
            let (a, b) = (postcard::to_allocvec(&small).unwrap(), postcard::to_allocvec(&tree).unwrap());
            proptest::prop_assert_eq!(&a, &b);
            let back: SmallSet<u8> = postcard::from_bytes(&b).unwrap();
            proptest::prop_assert_eq!(back, small);
        }
    }
}
