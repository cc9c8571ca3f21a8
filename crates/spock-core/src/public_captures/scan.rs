//! A reading of a uiautomator dump that shares nothing with the product's parser (which is
//! roxmltree): the `<node>` start tags in document order, each attribute decoded as XML 1.0
//! says (line ends normalised, then each literal tab, newline or carriage return in a value
//! becomes a space, then entity and character references are replaced). Comments, CDATA and
//! processing instructions are skipped. It panics on what it cannot read: it only ever reads
//! the committed captures.

/// One `<node …>` start tag.
#[derive(Debug)]
pub struct Element {
    pub attrs: Vec<(String, String)>,
}

impl Element {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The attribute, or `""` when it is absent (the product's default for strings).
    pub fn str(&self, name: &str) -> &str {
        self.get(name).unwrap_or_default()
    }

    /// A `"true"`/`"false"` flag, `default` when absent.
    pub fn flag(&self, name: &str, default: bool) -> bool {
        self.get(name).map_or(default, |v| v == "true")
    }

    /// `bounds="[l,t][r,b]"` as four numbers.
    pub fn bounds(&self) -> Option<[i32; 4]> {
        let v = self.get("bounds")?;
        let nums: Vec<i32> = v
            .split(['[', ']', ','])
            .filter(|s| !s.trim().is_empty())
            .map(|s| s.trim().parse().ok())
            .collect::<Option<_>>()?;
        nums.try_into().ok()
    }
}

/// Every `<node>` start tag of `xml`, in document order.
pub fn node_elements(xml: &str) -> Vec<Element> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(rel) = xml[i..].find('<') {
        let at = i + rel;
        let rest = &xml[at..];
        let skip_to = |close: &str| at + rest.find(close).map_or(rest.len(), |e| e + close.len());
        if rest.starts_with("<!--") {
            i = skip_to("-->");
            continue;
        }
        if rest.starts_with("<![CDATA[") {
            i = skip_to("]]>");
            continue;
        }
        if rest.starts_with("<?") || rest.starts_with("<!") || rest.starts_with("</") {
            i = skip_to(">");
            continue;
        }
        let name_end = rest[1..]
            .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
            .map_or(rest.len(), |e| e + 1);
        let (attrs, used) = attributes(&rest[name_end..]);
        if &rest[1..name_end] == "node" {
            out.push(Element { attrs });
        }
        i = at + name_end + used;
    }
    out
}

/// The attributes of one tag, from just after its name to its `>`, and the bytes used.
fn attributes(s: &str) -> (Vec<(String, String)>, usize) {
    let mut attrs = Vec::new();
    let mut pos = 0;
    loop {
        let trimmed = s[pos..].trim_start();
        if let Some(after) = trimmed.strip_prefix("/>") {
            return (attrs, s.len() - after.len());
        }
        if let Some(after) = trimmed.strip_prefix('>') {
            return (attrs, s.len() - after.len());
        }
        let eq = trimmed
            .find('=')
            .unwrap_or_else(|| panic!("attribute without a value at {trimmed:.40?}"));
        let name = trimmed[..eq].trim().to_string();
        let after_eq = trimmed[eq + 1..].trim_start();
        let quote = after_eq
            .chars()
            .next()
            .filter(|c| *c == '"' || *c == '\'')
            .unwrap_or_else(|| panic!("unquoted value of {name}"));
        let body = &after_eq[1..];
        let close = body
            .find(quote)
            .unwrap_or_else(|| panic!("value of {name} never closed"));
        attrs.push((name, decode(&body[..close])));
        pos = s.len() - body[close + 1..].len();
    }
}

/// An attribute value as an XML processor reports it.
pub fn decode(raw: &str) -> String {
    let normalised = raw.replace("\r\n", "\n").replace(['\r', '\n', '\t'], " ");
    let mut out = String::with_capacity(normalised.len());
    let mut rest = normalised.as_str();
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let semi = rest[amp..]
            .find(';')
            .unwrap_or_else(|| panic!("bare & in {raw:?}"));
        let name = &rest[amp + 1..amp + semi];
        let ch = match name {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = match name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => name.strip_prefix('#').and_then(|d| d.parse().ok()),
                };
                code.and_then(char::from_u32)
                    .unwrap_or_else(|| panic!("unknown reference &{name}; in {raw:?}"))
            }
        };
        out.push(ch);
        rest = &rest[amp + semi + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scan_reads_quotes_references_and_whitespace_as_xml_does() {
        let xml = "<?xml version='1.0'?><!-- <node text=\"no\"/> --><hierarchy>\
                   <node text='a &amp; &#10;b&#x4E2D;' content-desc=\"x\ty\r\nz &quot;q&quot;\" \
                   bounds=\"[0,1][20,-3]\"><nodes/><node text=\"&lt;&gt;\"/></node></hierarchy>";
        let els = node_elements(xml);
        assert_eq!(els.len(), 2);
        assert_eq!(els[0].str("text"), "a & \nb\u{4e2d}");
        assert_eq!(els[0].str("content-desc"), "x y z \"q\"");
        assert_eq!(els[0].bounds(), Some([0, 1, 20, -3]));
        assert_eq!(els[1].str("text"), "<>");
        assert!(!els[1].flag("password", false) && els[1].flag("enabled", true));
    }
}
