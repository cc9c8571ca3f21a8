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
//! What Android 16 prints (`AppFunctionManagerServiceShellCommand.runListAppFunctions`, see
//! `tests/fixtures/SOURCES.md`) is AppSearch documents: `{"<package>": [ {
//! "AppFunctionStaticMetadata-<package>": {"functionId": ["…"], "schemaName": ["…"], …},
//! "AppFunctionRuntimeMetadata-<package>": {"AppFunctionRuntimeMetadata-<package>":
//! {"enabled": [0|1|2]}} } ]}`, every property an array. [`normalize`] turns each such result
//! into the flat form above (single values unwrapped; `enabled` from the runtime document, 0
//! meaning `enabledByDefault`), so the rest reads one shape.
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

const STATIC_DOC: &str = "AppFunctionStaticMetadata";
const RUNTIME_DOC: &str = "AppFunctionRuntimeMetadata";

/// An AppSearch property: a one-element array is its value; nested documents are unwrapped
/// the same way.
fn unwrap_property(v: &Value) -> Value {
    match v {
        Value::Array(a) if a.len() == 1 && !a[0].is_object() => a[0].clone(),
        Value::Array(a) => Value::Array(a.iter().map(unwrap_property).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), unwrap_property(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// One search result (`{"AppFunctionStaticMetadata-…": doc, "AppFunctionRuntimeMetadata-…":
/// {…: doc}}`) as a flat function object, or `None` when it is not one.
fn flatten_result(o: &Map<String, Value>) -> Option<Value> {
    let (_, doc) = o.iter().find(|(k, _)| k.starts_with(STATIC_DOC))?;
    let Value::Object(mut flat) = unwrap_property(doc) else {
        return None;
    };
    // `searchResultToJsonObject` nests a joined result under its schema type once more.
    let runtime = o
        .iter()
        .find(|(k, _)| k.starts_with(RUNTIME_DOC))
        .and_then(|(_, v)| v.as_object())
        .map(|joined| {
            joined
                .iter()
                .find(|(k, _)| k.starts_with(RUNTIME_DOC))
                .and_then(|(_, d)| d.as_object())
                .unwrap_or(joined)
        })
        .and_then(|d| d.get("enabled"))
        .map(unwrap_property);
    let by_default = flat.get("enabledByDefault").and_then(Value::as_bool);
    let enabled = match runtime.as_ref().and_then(Value::as_i64) {
        Some(1) => Some(true),
        Some(2) => Some(false),
        _ => by_default,
    };
    if let Some(e) = enabled {
        flat.insert("enabled".into(), Value::Bool(e));
    }
    Some(Value::Object(flat))
}

/// Rewrites AppSearch search results anywhere in `v` into flat function objects.
pub fn normalize(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(normalize).collect()),
        Value::Object(o) => flatten_result(o).unwrap_or_else(|| {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
        }),
        other => other.clone(),
    }
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
    collect(&normalize(&value), &mut out);
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

    /// The shape of Android 16's `list-app-functions` (AppSearch documents, every property an
    /// array, the runtime document joined under its schema type twice).
    #[test]
    fn android_16_appsearch_documents() {
        let text = r#"{
  "com.example.notes": [
    {
      "AppFunctionStaticMetadata-com.example.notes": {
        "functionId": ["com.example.notes.NoteFunctions#createNote"],
        "packageName": ["com.example.notes"],
        "schemaName": ["createNote"],
        "schemaCategory": ["notes"],
        "schemaVersion": [2],
        "enabledByDefault": [true],
        "parameters": [{"name": ["title"], "dataType": ["string"], "isRequired": [true]}]
      },
      "AppFunctionRuntimeMetadata-com.example.notes": {
        "AppFunctionRuntimeMetadata-com.example.notes": {"functionId": ["x"], "enabled": [2]}
      }
    },
    {
      "AppFunctionStaticMetadata-com.example.notes": {
        "functionId": ["listNotes"], "packageName": ["com.example.notes"], "enabledByDefault": [true]
      },
      "AppFunctionRuntimeMetadata-com.example.notes": {
        "AppFunctionRuntimeMetadata-com.example.notes": {"enabled": [0]}
      }
    }
  ]
}"#;
        let f = parse_list(text).unwrap();
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(
            f[0].function_id,
            "com.example.notes.NoteFunctions#createNote"
        );
        assert_eq!(f[0].enabled, Some(false), "runtime 2 is disabled");
        assert_eq!(f[0].parameters[0].name, "title");
        assert!(f[0].parameters[0].required);
        assert_eq!(f[1].enabled, Some(true), "runtime 0 is the default");
        let flat = normalize(&serde_json::from_str(text).unwrap());
        assert_eq!(flat["com.example.notes"][0]["schemaVersion"], 2);
        assert_eq!(flat["com.example.notes"][0]["schemaCategory"], "notes");
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
