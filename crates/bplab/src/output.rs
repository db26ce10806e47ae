//! All-or-nothing output: files are written to a hidden staging folder beside
//! the output dir and moved into place only when everything succeeded.

use std::fs;
use std::path::{Path, PathBuf};

use crate::Failure;

fn io(what: &str, path: &Path, e: std::io::Error) -> Failure {
    Failure::Runtime(format!("{what} {}: {e}", path.display()))
}

/// A staging folder that becomes part of `target` on [`Staging::commit`]
/// and is removed if dropped uncommitted.
pub struct Staging {
    target: PathBuf,
    tmp: PathBuf,
    committed: bool,
}

impl Staging {
    /// Creates the staging folder next to `target`.
    pub fn new(target: &Path) -> Result<Self, Failure> {
        if target.exists() && !target.is_dir() {
            return Err(Failure::Usage(format!("--output-dir: '{}' exists and is not a folder", target.display())));
        }
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        let tmp = parent.join(format!(".{name}.partial-{}", std::process::id()));
        fs::create_dir_all(&tmp).map_err(|e| io("cannot create", &tmp, e))?;
        Ok(Self { target: target.to_path_buf(), tmp, committed: false })
    }

    /// Writes `bytes` to `rel` inside the staging folder.
    pub fn write(&self, rel: &Path, bytes: &[u8]) -> Result<PathBuf, Failure> {
        let path = self.tmp.join(rel);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| io("cannot create", dir, e))?;
        }
        fs::write(&path, bytes).map_err(|e| io("cannot write", &path, e))?;
        Ok(path)
    }

    /// Path of `rel` inside the staging folder (for writers that need a path).
    pub fn path(&self, rel: &Path) -> Result<PathBuf, Failure> {
        let path = self.tmp.join(rel);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| io("cannot create", dir, e))?;
        }
        Ok(path)
    }

    /// Moves every staged top-level entry into `target`, replacing entries
    /// of the same name.
    pub fn commit(mut self) -> Result<(), Failure> {
        fs::create_dir_all(&self.target).map_err(|e| io("cannot create", &self.target, e))?;
        let entries = fs::read_dir(&self.tmp).map_err(|e| io("cannot read", &self.tmp, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io("cannot read", &self.tmp, e))?;
            let dest = self.target.join(entry.file_name());
            if dest.is_dir() {
                fs::remove_dir_all(&dest).map_err(|e| io("cannot replace", &dest, e))?;
            } else if dest.exists() {
                fs::remove_file(&dest).map_err(|e| io("cannot replace", &dest, e))?;
            }
            fs::rename(entry.path(), &dest).map_err(|e| io("cannot move into place", &dest, e))?;
        }
        self.committed = true;
        let _ = fs::remove_dir_all(&self.tmp);
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.tmp);
        }
    }
}
