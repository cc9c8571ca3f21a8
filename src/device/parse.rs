//! Parsers for what Android commands print, proven on the captures in shared/fixtures/.
