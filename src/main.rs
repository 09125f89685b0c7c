//! The `analyst` binary: everything is in the library.

fn main() {
    std::process::exit(analyst::run());
}
