fn main() -> std::process::ExitCode {
    spock_tui::cli::main()
}
