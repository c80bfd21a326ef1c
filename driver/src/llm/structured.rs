//! Structured output: JSON that matches a schema, checked before it is
//! used. Invalid JSON or a schema violation is fed back to the model once;
//! a second failure is a clean error.

use serde_json::Value;

use super::client::{Llm, Secrets};
use super::errors::LlmError;
use super::schema;
use super::types::*;

/// A schema-valid answer and what it cost.
#[derive(Debug, Clone)]
pub struct StructuredReply {
    pub value: Value,
    pub usage: Usage,
}

/// The JSON in a text answer: models like to wrap it in code fences or
/// add a sentence around it.
pub(crate) fn json_in_text(text: &str) -> std::result::Result<Value, String> {
    let t = text.trim();
    if let Ok(v) = serde_json::from_str(t) {
        return Ok(v);
    }
    let unfenced = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .and_then(|s| s.strip_suffix("```"))
        .map(str::trim);
    if let Some(u) = unfenced {
        if let Ok(v) = serde_json::from_str(u) {
            return Ok(v);
        }
    }
    if let (Some(a), Some(b)) = (t.find('{'), t.rfind('}')) {
        if a < b {
            if let Ok(v) = serde_json::from_str(&t[a..=b]) {
                return Ok(v);
            }
        }
    }
    match serde_json::from_str::<Value>(t) {
        Err(e) => Err(format!(
            "the answer is not valid JSON ({e}): {}",
            crate::text::clip(t, 80)
        )),
        Ok(v) => Ok(v),
    }
}

/// The message that tells the model what was wrong with its answer. A tool
/// call must be answered by a tool result (both wire formats insist).
pub fn feedback(response: &ChatResponse, problem: &str) -> Message {
    let text = format!("Your answer was not accepted: {problem}. Answer again, following the schema exactly.");
    if response.tool_calls.is_empty() {
        Message::user(text)
    } else {
        Message::tool_results(
            response
                .tool_calls
                .iter()
                .map(|c| (c.id.clone(), text.clone(), true))
                .collect(),
        )
    }
}

impl Llm {
    /// Asks for JSON matching `schema` (an object schema): OpenAI through
    /// `response_format` json_schema, Anthropic through a forced tool call.
    pub async fn structured(
        &self,
        system: &str,
        messages: Vec<Message>,
        name: &str,
        schema_value: &Value,
        purpose: &str,
        secrets: &Secrets,
    ) -> Result<StructuredReply, LlmError> {
        let asked = self.structured_list(system, messages, name, schema_value, purpose, secrets, None);
        Ok(asked.await?.0)
    }

    /// [`Llm::structured`] for an answer that holds a list under `list`
    /// (`{"elements": […]}`): items that do not fit the list's item schema
    /// (an unknown method in one element) are taken out and returned
    /// apart, rather than costing the whole answer (with `None`, it is
    /// [`Llm::structured`]).
    #[allow(clippy::too_many_arguments)]
    pub async fn structured_list(
        &self,
        system: &str,
        mut messages: Vec<Message>,
        name: &str,
        schema_value: &Value,
        purpose: &str,
        secrets: &Secrets,
        list: Option<&str>,
    ) -> Result<(StructuredReply, Vec<Value>), LlmError> {
        let mut usage = Usage::default();
        let mut last_problem = String::new();
        for attempt in 0..2 {
            let req = ChatRequest {
                system: system.to_string(),
                messages: messages.clone(),
                response_schema: Some(ResponseSchema {
                    name: name.to_string(),
                    schema: schema_value.clone(),
                }),
                purpose: purpose.to_string(),
                ..Default::default()
            };
            let response = self.chat(&req, secrets).await?;
            usage += response.usage;
            let candidate = match response.tool_calls.iter().find(|c| c.name == name) {
                Some(call) if call.arguments.is_object() => Ok(call.arguments.clone()),
                Some(call) => Err(format!("the tool input is not a JSON object: {}", call.arguments)),
                None => json_in_text(response.text.as_deref().unwrap_or_default()),
            };
            let mut pruned = Vec::new();
            let checked = candidate.and_then(|mut v| {
                schema::conform_enum_case(schema_value, &mut v);
                if let Some(list) = list {
                    pruned = schema::prune_items(schema_value, &mut v, list);
                }
                schema::validate(schema_value, &v).map(|_| v)
            });
            match checked {
                Ok(value) => return Ok((StructuredReply { value, usage }, pruned)),
                Err(problem) => {
                    let problem = response.explain(problem);
                    tracing::info!("{purpose}: answer rejected (attempt {}): {problem}", attempt + 1);
                    messages.push(response.to_message());
                    messages.push(feedback(&response, &problem));
                    last_problem = problem;
                }
            }
        }
        Err(LlmError::Output(format!(
            "{purpose}: the model's answer was still invalid after a retry: {last_problem}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_json_in_chatty_text() {
        assert_eq!(json_in_text("{\"a\":1}").unwrap()["a"], 1);
        assert_eq!(json_in_text("```json\n{\"a\":2}\n```").unwrap()["a"], 2);
        assert_eq!(json_in_text("Sure! {\"a\":3} Hope that helps").unwrap()["a"], 3);
        assert!(json_in_text("{not json").unwrap_err().contains("not valid JSON"));
    }
}
