//! The `impactset` command line.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    // Die quietly on a closed pipe (`impactset sample … | head`), as command
    // line tools do, instead of panicking in `println!`.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread
    // starts; no handler is installed.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    cli::main()
}
