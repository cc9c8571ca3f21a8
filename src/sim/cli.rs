//! `spock-tui sim`: start virtual devices and print the bound addresses as one JSON line.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SimArgs {}

pub fn run(_args: SimArgs) -> anyhow::Result<()> {
    anyhow::bail!("spock-tui sim is not built yet")
}
