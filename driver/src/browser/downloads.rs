//! Downloads: saved into a directory of the caller's under the name the
//! site suggests, and reported with path and size once complete.

use std::path::{Path, PathBuf};

use chromiumoxide::cdp::browser_protocol::browser::{EventDownloadProgress, EventDownloadWillBegin};
use futures::StreamExt;
use serde_json::json;

use super::handle::Browser;
use super::records::{BrowserContext, Download};
use crate::error::{Error, Result};
use crate::page::raw_cdp;

/// `dir/name`, or `dir/name (2)` … when taken. Only the name's last part
/// counts: a site's suggested name never leads out of `dir`.
fn free_name(dir: &Path, name: &str) -> PathBuf {
    let name = Path::new(name)
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| !n.trim().is_empty() && *n != "." && *n != "..")
        .unwrap_or("download");
    let first = dir.join(name);
    if !first.exists() {
        return first;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (name.to_string(), String::new()),
    };
    (2..)
        .map(|n| dir.join(format!("{stem} ({n}){ext}")))
        .find(|p| !p.exists())
        .expect("a free name")
}

impl Browser {
    /// Saves downloads of `context` (the default context when `None`) into
    /// `dir` from now on, and starts following them (see [`Browser::downloads`]).
    /// In the user's own browser (reached with `--cdp-url`) the default
    /// context's downloads are theirs too: they go where that browser saves
    /// downloads, and are only followed (a setting there holds for all of
    /// the user's tabs while Sightline is attached).
    pub async fn save_downloads_to(&self, dir: &Path, context: Option<&BrowserContext>) -> Result<()> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Io(format!("cannot create the download directory {}: {e}", dir.display())))?;
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let browser = self.cdp_browser()?;
        let users_own = self.screen.is_some() && context.is_none();
        let mut params = match users_own {
            true => json!({"behavior": "default", "eventsEnabled": true}),
            false => json!({"behavior": "allowAndName", "downloadPath": dir, "eventsEnabled": true}),
        };
        if let Some(c) = context {
            params["browserContextId"] = json!(c.id);
        }
        raw_cdp::on_browser(browser, "Browser.setDownloadBehavior", params).await?;
        if !users_own {
            let mut dirs = self.download_dirs.lock().unwrap();
            if !dirs.contains(&dir) {
                dirs.push(dir.clone());
            }
        }
        if self.download_watch.lock().unwrap().is_some() {
            return Ok(());
        }
        // Events of every context arrive on the browser session; files are
        // renamed in the directory the download started in.
        let listen = |e| Error::cdp("Browser download events", e);
        let mut began = browser
            .event_listener::<EventDownloadWillBegin>()
            .await
            .map_err(listen)?;
        let mut progress = browser
            .event_listener::<EventDownloadProgress>()
            .await
            .map_err(listen)?;
        let list = self.downloads.clone();
        let dirs = self.download_dirs.clone();
        // (Whose a download is, decided as it begins: its tab may close first.)
        let screen = self.screen.as_ref().map(super::tab_screen::TabScreen::screen);
        let task = tokio::spawn(async move {
            loop {
                tokio::select! {
                    Some(ev) = began.next() => {
                        // (Its tab, and whether that is in a context of Sightline's.)
                        let screened_tab = screen.as_ref().and_then(|s| {
                            let s = s.lock().unwrap();
                            s.tab_of_frame(ev.frame_id.inner()).map(|tab| (tab.to_string(), s.in_a_context(tab)))
                        });
                        let mut l = list.lock().unwrap();
                        let seq = l.len() as u64 + 1;
                        l.push(Download {
                            seq,
                            url: ev.url.clone(),
                            suggested_filename: ev.suggested_filename.clone(),
                            // (Known once complete: the folder it was saved in.)
                            path: PathBuf::new(),
                            bytes: 0,
                            state: "inProgress".into(),
                            guid: ev.guid.clone(),
                            by_the_browser: screened_tab.as_ref().is_some_and(|(_, in_a_context)| !in_a_context),
                            users_own: screen.is_some() && screened_tab.is_none(),
                        });
                    }
                    Some(ev) = progress.next() => {
                        let state = serde_json::to_value(&ev.state).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
                        let mut l = list.lock().unwrap();
                        let Some(d) = l.iter_mut().find(|d| d.guid == ev.guid) else { continue };
                        d.bytes = ev.received_bytes.max(0.0) as u64;
                        if state == "completed" && d.state != "completed" {
                            // Saved under its guid in its context's folder.
                            let folder = dirs.lock().unwrap().iter().find(|f| f.join(&d.guid).exists()).cloned();
                            if let Some(folder) = folder {
                                let target = free_name(&folder, &d.suggested_filename);
                                d.path = match std::fs::rename(folder.join(&d.guid), &target) {
                                    Ok(()) => target,
                                    Err(_) => folder.join(&d.guid),
                                };
                                // (A context of Sightline's, with a folder: not the browser's.)
                                d.by_the_browser = false;
                            } else if let Some(saved) = ev.file_path.as_deref().filter(|p| !p.is_empty()) {
                                d.path = PathBuf::from(saved);
                            }
                        }
                        d.state = state;
                    }
                    else => break,
                }
            }
        });
        let mut watch = self.download_watch.lock().unwrap();
        match watch.as_ref() {
            // Another call started one meanwhile.
            Some(_) => task.abort(),
            None => *watch = Some(task),
        }
        Ok(())
    }

    /// The download that a navigation to `url` began after `mark`, waiting
    /// a moment for its event, which may trail the aborted navigation.
    pub async fn download_began_since(&self, mark: u64, url: &str) -> Option<Download> {
        for _ in 0..10 {
            let began = self.downloads(mark);
            // (Of this URL only: another session's download is not its to report.)
            if let Some(d) = began.iter().find(|d| d.url == url) {
                return Some(d.clone());
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        None
    }

    /// Downloads with a sequence number above `after` (0: all of them).
    pub fn downloads(&self, after: u64) -> Vec<Download> {
        self.downloads
            .lock()
            .unwrap()
            .iter()
            .filter(|d| d.seq > after)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suggested_name_stays_in_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(free_name(dir.path(), "../../etc/cron.d/x"), dir.path().join("x"));
        assert_eq!(free_name(dir.path(), "/etc/passwd"), dir.path().join("passwd"));
        assert_eq!(free_name(dir.path(), ".."), dir.path().join("download"));
        std::fs::write(dir.path().join("a.txt"), "").unwrap();
        assert_eq!(free_name(dir.path(), "a.txt"), dir.path().join("a (2).txt"));
    }
}
