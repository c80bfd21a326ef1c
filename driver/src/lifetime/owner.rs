//! A process's identity over time: its id and its start time (clock ticks
//! after boot, `/proc/<pid>/stat` field 22), so a reused id is not taken
//! for the process that once had it.

/// `<pid>.<start>` of this process.
pub(super) fn this_process() -> String {
    let pid = std::process::id();
    format!("{pid}.{}", start_time(pid).unwrap_or(0))
}

/// When process `pid` started, if it runs.
pub(super) fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count from its end.
    let rest = stat.rsplit_once(')')?.1;
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the process an `<pid>.<start>` token names still runs.
pub(super) fn is_alive(token: &str) -> bool {
    let Some((pid, start)) = token.split_once('.') else {
        return true;
    };
    let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
        return true;
    };
    start_time(pid) == Some(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_finished_one_is_not() {
        assert!(is_alive(&this_process()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let start = start_time(pid);
        child.wait().unwrap();
        assert!(!is_alive(&format!("{pid}.{}", start.unwrap_or(1))));
        // The same id with another start time is another process.
        let me = std::process::id();
        assert!(!is_alive(&format!("{me}.{}", start_time(me).unwrap() + 1)));
        assert!(is_alive("not-a-token"), "unknown owners are left alone");
    }
}
