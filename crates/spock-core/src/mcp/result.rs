//! Tool results as 003_… describes them: `structuredContent` plus one text block holding the
//! same JSON, `isError: true` when the tool failed; images as MCP image content beside them.
//! Device failures are tool results an agent can act on, never JSON-RPC errors.
use base64::Engine;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::{Value, json};

#[derive(Debug, Clone)]
pub struct Image {
    pub mime: &'static str,
    pub data: Vec<u8>,
    pub width: u32,
    pub height: u32,
    /// The person's copy when parts of this (the agent's) image were blacked out: the
    /// control centre shows and saves it whole. Agents, the audit trail and batch runs only
    /// ever get `data`.
    pub whole: Option<Box<Image>>,
}

#[derive(Debug, Clone)]
pub struct ToolOutput {
    pub json: Value,
    pub images: Vec<Image>,
}

impl ToolOutput {
    /// The result as JSON. A top-level field that is `null` is left out: results omit what
    /// they do not have, and the output schemas type each field without a `null` branch.
    pub fn json<T: Serialize>(value: &T) -> Result<Self, ToolError> {
        let mut json = serde_json::to_value(value)
            .map_err(|e| ToolError::internal(format!("result could not be encoded: {e}")))?;
        if let Value::Object(map) = &mut json {
            map.retain(|_, v| !v.is_null());
        }
        Ok(ToolOutput {
            json,
            images: Vec::new(),
        })
    }

    pub fn into_call_result(self) -> CallToolResult {
        let mut result = CallToolResult::structured(self.json);
        let b64 = base64::engine::general_purpose::STANDARD;
        for img in self.images {
            result
                .content
                .push(ContentBlock::image(b64.encode(&img.data), img.mime));
        }
        result
    }
}

/// Why a tool did not succeed. `kind` lets agents and the audit trail tell a refusal from a
/// denial from a device failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    InvalidArguments,
    Refused,
    Denied,
    Disabled,
    Device,
    Timeout,
    Cancelled,
    NotFound,
    Internal,
}

#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    pub kind: ErrorKind,
    pub message: String,
    pub details: Option<Value>,
}

impl ToolError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ToolError {
            kind,
            message: message.into(),
            details: None,
        }
    }
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
    pub fn invalid_args(e: impl std::fmt::Display) -> Self {
        Self::new(
            ErrorKind::InvalidArguments,
            format!("invalid arguments: {e}"),
        )
    }
    pub fn refused(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Refused, message)
    }
    pub fn device(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Device, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({ "error": self.message, "kind": self.kind });
        if let (Some(Value::Object(extra)), Some(obj)) = (&self.details, v.as_object_mut()) {
            for (k, val) in extra {
                obj.entry(k.clone()).or_insert(val.clone());
            }
        }
        v
    }

    pub fn into_call_result(self) -> CallToolResult {
        CallToolResult::structured_error(self.to_json())
    }
}
