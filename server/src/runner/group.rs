//! Process groups: every program runs as the leader of its own group, and the
//! whole group is killed when its guard drops — on normal completion (so a
//! backgrounded `sleep 300 &` does not survive), on timeout, on cancellation
//! (the request's future is dropped) and at server exit ([`kill_all`]).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

fn live() -> &'static Mutex<HashSet<i32>> {
    static LIVE: OnceLock<Mutex<HashSet<i32>>> = OnceLock::new();
    LIVE.get_or_init(Mutex::default)
}

/// Kills its process group when dropped.
#[derive(Debug)]
pub struct GroupGuard {
    pgid: i32,
}

impl GroupGuard {
    /// Takes charge of the group led by `pid` (spawned with `process_group(0)`).
    pub fn new(pid: u32) -> Self {
        let pgid = pid as i32;
        crate::store::lock(live()).insert(pgid);
        Self { pgid }
    }

    /// Sends SIGKILL to every process of the group.
    pub fn kill(&self) {
        // ESRCH (group already gone) is the normal case after a clean exit.
        let _ = killpg(Pid::from_raw(self.pgid), Signal::SIGKILL);
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
        crate::store::lock(live()).remove(&self.pgid);
    }
}

/// Kills every group still running: called when the server exits.
pub fn kill_all() {
    let groups: Vec<i32> = crate::store::lock(live()).drain().collect();
    for pgid in groups {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
}
