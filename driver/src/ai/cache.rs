//! The act cache: a resolved action list per (instruction, URL with its
//! query sorted, variable names), one JSON file each in the cache directory.
//! A hit replays with no model call; the caller checks that the selectors
//! still resolve and falls back to inference (rewriting the entry) when not.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::record::ActRecord;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheKey {
    pub instruction: String,
    pub url: String,
    pub variables: Vec<String>,
}

impl CacheKey {
    pub fn new(instruction: &str, url: &str, mut variables: Vec<String>) -> CacheKey {
        variables.sort();
        CacheKey {
            instruction: instruction.trim().to_string(),
            url: normalize_url(url),
            variables,
        }
    }

    /// FNV-1a of the key's JSON: stable across runs and platforms.
    fn file_name(&self) -> String {
        let text = serde_json::to_string(self).expect("key serialises");
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        format!("act-{h:016x}.json")
    }
}

/// The URL with its query parameters sorted and without its fragment, so
/// `?b=2&a=1` and `?a=1&b=2#top` share an entry.
pub fn normalize_url(url: &str) -> String {
    let Ok(mut u) = url::Url::parse(url) else {
        return url.to_string();
    };
    u.set_fragment(None);
    let mut pairs: Vec<(String, String)> = u.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
    if pairs.is_empty() {
        u.set_query(None);
    } else {
        pairs.sort();
        u.query_pairs_mut().clear().extend_pairs(pairs);
    }
    u.to_string()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    key: CacheKey,
    actions: Vec<ActRecord>,
}

#[derive(Debug, Clone)]
pub struct ActionCache {
    dir: PathBuf,
}

impl ActionCache {
    pub fn new(dir: &Path) -> ActionCache {
        ActionCache { dir: dir.to_path_buf() }
    }

    /// The cached actions for `key`; a missing, unreadable or colliding
    /// entry is a miss.
    pub fn get(&self, key: &CacheKey) -> Option<Vec<ActRecord>> {
        let text = std::fs::read_to_string(self.dir.join(key.file_name())).ok()?;
        let entry: Entry = serde_json::from_str(&text).ok()?;
        (entry.key == *key && !entry.actions.is_empty()).then_some(entry.actions)
    }

    /// Writes the entry atomically (temp file, then rename), so a crash never
    /// leaves half an entry behind.
    pub fn put(&self, key: &CacheKey, actions: &[ActRecord]) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let entry = Entry {
            key: key.clone(),
            actions: actions.to_vec(),
        };
        let text = serde_json::to_string_pretty(&entry).expect("entry serialises");
        let path = self.dir.join(key.file_name());
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text)?;
        std::fs::rename(&tmp, &path)
    }

    pub fn remove(&self, key: &CacheKey) {
        let _ = std::fs::remove_file(self.dir.join(key.file_name()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_query_order_and_fragments() {
        assert_eq!(normalize_url("http://a.test/p?b=2&a=1#x"), "http://a.test/p?a=1&b=2");
        let k1 = CacheKey::new("click buy", "http://a.test/?b=2&a=1", vec!["pw".into(), "user".into()]);
        let k2 = CacheKey::new("click buy ", "http://a.test/?a=1&b=2", vec!["user".into(), "pw".into()]);
        assert_eq!(k1.file_name(), k2.file_name());
        let k3 = CacheKey::new("click buy", "http://a.test/?a=1&b=2", vec![]);
        assert_ne!(k1.file_name(), k3.file_name());
    }

    #[test]
    fn round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ActionCache::new(dir.path());
        let key = CacheKey::new("fill email", "http://a.test/", vec![]);
        assert!(cache.get(&key).is_none());
        let rec = ActRecord {
            description: "email field".into(),
            method: "fill".into(),
            arguments: vec!["%email%".into()],
            selector: "#email".into(),
            frame: None,
            element: None,
            context: None,
            rect: None,
        };
        cache.put(&key, std::slice::from_ref(&rec)).unwrap();
        assert_eq!(cache.get(&key).unwrap(), vec![rec]);
    }
}
