//! Rebuilds the crate when a message catalogue under `locales/` changes: they are
//! embedded in the binary, and a new file is not something the compiler tracks.

fn main() {
    println!("cargo:rerun-if-changed=../locales");
}
