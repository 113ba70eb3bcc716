//! The Python tools in scripts/ are part of the product: their own test
//! suites run here against the engine this build made.

use std::process::Command;

#[test]
fn python_client_module_suite_passes() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts");
    let out = Command::new("python3")
        .args(["-m", "unittest", "-v", "test_yote_client"])
        .current_dir(dir)
        .env("YOTE_ENGINE", env!("CARGO_BIN_EXE_yote"))
        .output()
        .expect("run python3");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // unittest reports on stderr; make sure tests really ran.
    assert!(stderr.contains("\nOK"), "{stderr}");
    assert!(!stderr.contains("Ran 0 tests"), "{stderr}");
}
