//! `cmd app_function list-app-functions`: the AppFunctions apps expose to agents.
//!
//! Expected format (what the virtual device prints; real devices print JSON of the same
//! metadata, possibly after a banner line and with other key spellings):
//!
//! ```text
//! [
//!   { "packageName": "com.example.notes",
//!     "functionId": "com.example.notes.NoteFunctions#createNote",
//!     "enabled": true,
//!     "description": "Create a note",
//!     "parameters": [ { "name": "title", "type": "string", "required": true,
//!                       "description": "Note title" } ],
//!     "response": { "type": "object" } }
//! ]
//! ```
//!
//! Tolerated: text before the JSON; `{"functions": [...]}` / `{"appFunctions": [...]}`
//! wrappers; `{"<package>": [ {functionId...} ]}` grouped by package; snake_case keys;
//! `enabled` as a string; entries missing an id are dropped, not fatal.
use serde::Serialize;
use serde_json::{Map, Value};

use super::ParseError;

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppFunction {
    pub package_name: String,
    pub function_id: String,
    pub enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub parameters: Vec<AppFunctionParam>,
    /// The return type's metadata, as printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppFunctionParam {
    pub name: String,
    /// string / int / long / float / double / boolean / object / array ... ("any" if unsaid).
    pub r#type: String,
    pub required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

fn get<'a>(o: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().find_map(|k| o.get(*k))
}

fn string(o: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    get(o, keys).and_then(Value::as_str).map(str::to_string)
}

fn boolean(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn param(v: &Value) -> Option<AppFunctionParam> {
    let o = v.as_object()?;
    Some(AppFunctionParam {
        name: string(o, &["name"])?,
        r#type: string(o, &["type", "dataType"]).unwrap_or_else(|| "any".into()),
        required: boolean(get(o, &["required", "isRequired"])).unwrap_or(false),
        description: string(o, &["description"]),
    })
}

fn function(v: &Value, package: Option<&str>) -> Option<AppFunction> {
    let o = v.as_object()?;
    let package_name =
        string(o, &["packageName", "package_name", "package"]).or(package.map(str::to_string))?;
    let params = get(o, &["parameters", "params"]).and_then(Value::as_array);
    Some(AppFunction {
        package_name,
        function_id: string(o, &["functionId", "function_id", "id"])?,
        enabled: boolean(get(o, &["enabled", "isEnabled"])),
        description: string(o, &["description"]),
        parameters: params
            .map(|p| p.iter().filter_map(param).collect())
            .unwrap_or_default(),
        response: get(o, &["response", "returns"]).cloned(),
    })
}

fn collect(v: &Value, out: &mut Vec<AppFunction>) {
    match v {
        Value::Array(items) => out.extend(items.iter().filter_map(|i| function(i, None))),
        Value::Object(o) => {
            if let Some(list) = get(o, &["functions", "appFunctions"]) {
                return collect(list, out);
            }
            if let Some(f) = function(v, None) {
                return out.push(f);
            }
            for (package, list) in o {
                if let Some(items) = list.as_array() {
                    out.extend(items.iter().filter_map(|i| function(i, Some(package))));
                }
            }
        }
        _ => {}
    }
}

pub fn parse_list(text: &str) -> Result<Vec<AppFunction>, ParseError> {
    let Some(start) = text.find(['[', '{']) else {
        let first = text.lines().next().unwrap_or("").trim();
        return Err(ParseError::NoJson(first.chars().take(200).collect()));
    };
    // Only the first JSON value counts; trailing shell noise is ignored.
    let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let value = match stream.next() {
        Some(Ok(v)) => v,
        Some(Err(e)) => return Err(ParseError::BadJson(e.to_string())),
        None => return Err(ParseError::NoJson(String::new())),
    };
    let mut out = Vec::new();
    collect(&value, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_format() {
        let text = r#"[{"packageName":"com.example.notes","functionId":"com.example.notes.NoteFunctions#createNote",
            "enabled":true,"description":"Create a note",
            "parameters":[{"name":"title","type":"string","required":true},{"name":"pinned","type":"boolean"},{"type":"x"}],
            "response":{"type":"object"}},
            {"packageName":"com.example.notes","functionId":"listNotes","enabled":false,"parameters":[]},
            {"packageName":"no.id"}]"#;
        let f = parse_list(text).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(
            f[0].function_id,
            "com.example.notes.NoteFunctions#createNote"
        );
        assert_eq!(f[0].enabled, Some(true));
        assert_eq!(
            f[0].parameters.len(),
            2,
            "a parameter without a name is dropped"
        );
        assert!(f[0].parameters[0].required && !f[0].parameters[1].required);
        assert_eq!(f[0].parameters[1].r#type, "boolean");
        assert_eq!(f[0].response.as_ref().unwrap()["type"], "object");
        assert_eq!(f[1].enabled, Some(false));
        let json = serde_json::to_value(&f[0]).unwrap();
        assert_eq!(json["functionId"], f[0].function_id.as_str());
    }

    #[test]
    fn tolerated_shapes_and_errors() {
        let grouped =
            "AppFunctions:\n{\"com.a\": [{\"function_id\": \"f1\", \"enabled\": \"true\"}]}\n$ ";
        let f = parse_list(grouped).unwrap();
        assert_eq!(
            (
                f[0].package_name.as_str(),
                f[0].function_id.as_str(),
                f[0].enabled
            ),
            ("com.a", "f1", Some(true))
        );
        let wrapped = r#"{"functions":[{"package":"com.b","id":"g"}]}"#;
        assert_eq!(parse_list(wrapped).unwrap()[0].package_name, "com.b");
        assert_eq!(parse_list("[]").unwrap(), vec![]);
        assert!(matches!(
            parse_list("Unknown command: list-app-functions"),
            Err(ParseError::NoJson(_))
        ));
        assert!(matches!(
            parse_list("[{\"packageName\": "),
            Err(ParseError::BadJson(_))
        ));
    }
}
