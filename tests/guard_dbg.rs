#[test]
fn dbg() {
    let s = std::fs::read_to_string("/tmp/guard_dbg.txt").unwrap();
    for c in s.split("\n====\n") {
        println!("{:?}\n  => {:?}", c, spock_tui::guard::catastrophic(c));
    }
}
