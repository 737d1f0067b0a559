//! [`SmallSet`] and [`SmallMap`]: a sorted set and map kept in one vector.
//!
//! A session's models, branches, versions, files and usage by model hold
//! one to a few entries each; a `BTreeSet` or `BTreeMap` allocates a node
//! of several hundred bytes for the first. Iteration order and the
//! serialised form (the cache's) are those of the `BTree` collections.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Room for one more entry: exactly, for the first few (a vector's first
/// push makes room for four, and most of these hold one), then doubling.
fn grow<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact(if v.len() < 4 { 1 } else { v.len() });
    }
}

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
                grow(&mut self.0);
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
        // touch thousands of files). Into an empty set, exactly: a
        // vector's `extend` makes room for at least four.
        let values = values.into_iter();
        if self.0.is_empty() {
            self.0.reserve_exact(values.size_hint().0);
        }
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

    #[test]
    fn one_entry_takes_room_for_one() {
        let mut set = SmallSet::new();
        set.insert(7u64);
        assert_eq!(set.0.capacity(), 1);
        let mut map: SmallMap<u8, u64> = SmallMap::new();
        *map.entry_or_default(1) += 1;
        assert_eq!(map.0.capacity(), 1);
        let mut more = SmallSet::new();
        more.extend(SmallSet::from_iter([3u64]));
        assert_eq!(more.0.capacity(), 1);
        // Many entries still grow by doubling, not one by one.
        for v in 0..1000u64 {
            set.insert(v);
        }
        assert!((1000..2000).contains(&set.0.capacity()));
    }

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

/// A map from `K` to `V` in key order, in one vector: the [`SmallSet`] of
/// pairs. Reads and serialises as a `BTreeMap`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmallMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SmallMap<K, V> {
    fn default() -> Self {
        SmallMap(Vec::new())
    }
}

impl<K: Ord, V> SmallMap<K, V> {
    pub fn new() -> Self {
        SmallMap(Vec::new())
    }

    /// The value at `key`, made with `V::default()` when absent.
    pub fn entry_or_default(&mut self, key: K) -> &mut V
    where
        V: Default,
    {
        let at = match self.0.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(at) => at,
            Err(at) => {
                grow(&mut self.0);
                self.0.insert(at, (key, V::default()));
                at
            }
        };
        &mut self.0[at].1
    }

    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        let at = self.0.binary_search_by(|(k, _)| k.cmp(key)).ok()?;
        Some(&mut self.0[at].1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: Ord, V, const N: usize> From<[(K, V); N]> for SmallMap<K, V> {
    fn from(pairs: [(K, V); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SmallMap<K, V> {
    /// The last value of a key wins, as in a `BTreeMap`.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Self {
        let mut v: Vec<(K, V)> = pairs.into_iter().collect();
        v.reverse();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v.dedup_by(|later, first| later.0 == first.0);
        SmallMap(v)
    }
}

impl<K: Serialize, V: Serialize> Serialize for SmallMap<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Deserialize<'de> for SmallMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = std::collections::BTreeMap::<K, V>::deserialize(d)?;
        Ok(SmallMap(map.into_iter().collect()))
    }
}

#[cfg(test)]
mod map_tests {
    use super::*;
    use std::collections::BTreeMap;

    proptest::proptest! {
        /// Built from pairs or value by value, the map reads and
        /// serialises as a `BTreeMap` of the same pairs.
        #[test]
        fn behaves_as_a_btreemap(
            pairs in proptest::collection::vec((0u8..10, 0u32..100), 0..20),
            adds in proptest::collection::vec((0u8..10, 0u32..100), 0..20),
        ) {
            let mut small: SmallMap<u8, u32> = pairs.iter().copied().collect();
            let mut tree: BTreeMap<u8, u32> = pairs.iter().copied().collect();
            for (k, v) in &adds {
                *small.entry_or_default(*k) += v;
                *tree.entry(*k).or_default() += v;
            }
            if let (Some(a), Some(b)) = (small.get_mut(&3), tree.get_mut(&3)) {
                *a += 1;
                *b += 1;
            }
            proptest::prop_assert!(small.iter().eq(tree.iter()));
            proptest::prop_assert_eq!(small.len(), tree.len());
            let (a, b) = (postcard::to_allocvec(&small).unwrap(), postcard::to_allocvec(&tree).unwrap());
            proptest::prop_assert_eq!(&a, &b);
            let back: SmallMap<u8, u32> = postcard::from_bytes(&b).unwrap();
            proptest::prop_assert_eq!(back, small);
        }
    }
}
