use super::*;

/// Every tool a capture calls is a read in this build's catalogue: a capture changes nothing
/// on the phone (the capture checks it again before each call).
#[test]
fn a_capture_calls_only_read_tools() {
    let catalogue = spock_core::mcp::tools::catalogue();
    for (tool, _) in reads(Some("com.example.shop")) {
        let def = catalogue
            .get(tool)
            .unwrap_or_else(|| panic!("{tool} is not in the catalogue"));
        assert_eq!(def.level, Level::ReadOnly, "{tool}");
    }
}
