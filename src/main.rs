fn main() -> std::process::ExitCode {
    spock_tui::mcp::imagework::tune_allocator();
    spock_tui::app::main()
}
