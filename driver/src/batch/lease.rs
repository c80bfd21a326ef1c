//! A worker's browser: launched, connected to, or a grid session, and how
//! each is let go.

use super::grid::{Grid, GridSession};
use super::options::Fleet;
use crate::browser::{Browser, LaunchOptions};
use crate::error::Result;

/// Where a worker's browsers come from.
#[derive(Debug)]
pub(crate) enum Source {
    Local(LaunchOptions),
    Endpoints(Vec<String>, LaunchOptions),
    Grid(Grid, LaunchOptions),
}

impl Source {
    pub fn new(fleet: &Fleet, launch: &LaunchOptions) -> Result<Source> {
        Ok(match fleet {
            Fleet::Local => Source::Local(launch.clone()),
            Fleet::Endpoints(urls) => Source::Endpoints(urls.clone(), launch.clone()),
            Fleet::Grid(url) => Source::Grid(Grid::new(url)?, launch.clone()),
        })
    }

    /// A grid session serves one task; other browsers serve many.
    pub fn per_task(&self) -> bool {
        matches!(self, Source::Grid(..))
    }

    /// A browser the user runs (`--cdp-endpoint`) keeps its own state (its
    /// logins): tasks use its default context.
    pub fn keeps_its_own_state(&self) -> bool {
        matches!(self, Source::Endpoints(..))
    }

    /// Browsers we launched are recycled; others are not ours to restart.
    pub fn recyclable(&self) -> bool {
        matches!(self, Source::Local(_))
    }

    /// A browser for `worker` (the grid session is named after the task).
    pub async fn acquire(&self, worker: usize, task_id: &str) -> Result<Lease> {
        match self {
            Source::Local(launch) => Ok(Lease::Local(Browser::launch(launch.clone()).await?)),
            Source::Endpoints(urls, launch) => {
                let url = &urls[worker % urls.len()];
                Ok(Lease::Endpoint(Browser::connect(url, launch.clone()).await?))
            }
            Source::Grid(grid, launch) => {
                let mut session = grid.new_session(launch, task_id).await?;
                match Browser::connect(&session.cdp_url, launch.clone()).await {
                    Ok(browser) => Ok(Lease::Grid { browser, session }),
                    Err(e) => {
                        let _ = session.delete().await;
                        Err(e)
                    }
                }
            }
        }
    }
}

/// A browser a worker holds.
#[derive(Debug)]
pub(crate) enum Lease {
    Local(Browser),
    Endpoint(Browser),
    Grid { browser: Browser, session: GridSession },
}

impl Lease {
    pub fn browser(&self) -> &Browser {
        match self {
            Lease::Local(b) | Lease::Endpoint(b) | Lease::Grid { browser: b, .. } => b,
        }
    }

    /// The process id of a browser we launched.
    pub fn pid(&mut self) -> Option<u32> {
        match self {
            Lease::Local(b) => b.pid(),
            _ => None,
        }
    }

    /// The grid session, to keep alive while a task runs.
    pub fn grid_session(&self) -> Option<&GridSession> {
        match self {
            Lease::Grid { session, .. } => Some(session),
            _ => None,
        }
    }

    /// Closes a launched browser, disconnects from a running one, and
    /// deletes a grid session (after disconnecting, so the grid is not left
    /// proxying a socket to a browser it is stopping). Returns why a grid
    /// session could not be deleted.
    pub async fn release(self) -> Option<String> {
        match self {
            Lease::Local(b) | Lease::Endpoint(b) => {
                let _ = b.close().await;
                None
            }
            Lease::Grid { browser, mut session } => {
                let _ = browser.close().await;
                session
                    .delete()
                    .await
                    .err()
                    .map(|e| format!("grid session {} was not deleted: {e}", session.id))
            }
        }
    }
}
