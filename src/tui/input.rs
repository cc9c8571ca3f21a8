//! A one-line text input (search boxes, numeric settings). Small enough to own outright:
//! characters, Backspace/Delete, cursor movement, Ctrl-U to clear.
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineInput {
    pub text: String,
    /// In characters, not bytes.
    pub cursor: usize,
}

impl LineInput {
    pub fn new(text: &str) -> LineInput {
        LineInput {
            text: text.to_string(),
            cursor: text.chars().count(),
        }
    }

    fn byte_at(&self, cursor: usize) -> usize {
        self.text
            .char_indices()
            .nth(cursor)
            .map_or(self.text.len(), |(i, _)| i)
    }

    /// Apply an editing key; true when the text changed.
    pub fn handle(&mut self, key: &KeyEvent) -> bool {
        let len = self.text.chars().count();
        match key.code {
            KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.text.clear();
                self.cursor = 0;
                true
            }
            KeyCode::Char(c)
                if !key.modifiers.contains(KeyModifiers::CONTROL) && !c.is_control() =>
            {
                let at = self.byte_at(self.cursor);
                self.text.insert(at, c);
                self.cursor += 1;
                true
            }
            KeyCode::Backspace if self.cursor > 0 => {
                let at = self.byte_at(self.cursor - 1);
                self.text.remove(at);
                self.cursor -= 1;
                true
            }
            KeyCode::Delete if self.cursor < len => {
                let at = self.byte_at(self.cursor);
                self.text.remove(at);
                true
            }
            KeyCode::Left => {
                self.cursor = self.cursor.saturating_sub(1);
                false
            }
            KeyCode::Right => {
                self.cursor = (self.cursor + 1).min(len);
                false
            }
            KeyCode::Home => {
                self.cursor = 0;
                false
            }
            KeyCode::End => {
                self.cursor = len;
                false
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn edits_in_the_middle_of_multibyte_text() {
        let mut i = LineInput::new("aé");
        i.handle(&k(KeyCode::Left));
        assert!(i.handle(&k(KeyCode::Char('x'))));
        assert_eq!(i.text, "axé");
        assert!(i.handle(&k(KeyCode::Backspace)));
        assert_eq!(i.text, "aé");
        i.handle(&k(KeyCode::Home));
        assert!(i.handle(&k(KeyCode::Delete)));
        assert_eq!(i.text, "é");
        assert!(i.handle(&KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)));
        assert_eq!(i, LineInput::default());
    }
}
