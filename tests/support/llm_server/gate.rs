//! The gate: what every request goes through before it may take a scripted
//! reply, in the real APIs' order: the endpoint, the key, the headers, the
//! JSON, the body (each wire's own validation), the model. A request the
//! gate refuses consumes no reply.

use super::http::Response;
use super::{anthropic, error_response, gemini, openai_chat, openai_responses, Recorded, Wire, BAD_KEY, UNKNOWN_MODEL};

/// `anthropic-version` values the real API accepts.
const ANTHROPIC_VERSIONS: &[&str] = &["2023-06-01", "2023-01-01"];

/// A response that does not consume a scripted reply; `rejected` says why
/// the request is malformed (None for the scripted failure modes: a bad key,
/// an unknown model).
pub(crate) struct Verdict {
    pub response: Response,
    pub rejected: Option<String>,
}

pub(crate) fn refuse(wire: Option<Wire>, status: u16, message: &str) -> Option<Verdict> {
    Some(Verdict {
        response: error_response(wire, status, message),
        rejected: Some(message.to_string()),
    })
}

/// A scripted failure: the provider's answer, not a malformed request.
fn scripted(response: Response) -> Option<Verdict> {
    Some(Verdict {
        response,
        rejected: None,
    })
}

/// Checks in the real APIs' order: endpoint, key, headers, JSON, body, model.
pub(crate) fn gate(method: &str, rec: &Recorded, parse_error: Option<&str>) -> Option<Verdict> {
    let path = rec.path.split('?').next().unwrap_or_default();
    let Some(wire) = rec.wire else {
        return Some(Verdict {
            response: openai_chat::error(
                404,
                &format!("Invalid URL ({method} {path})"),
                "invalid_request_error",
                None,
            ),
            rejected: Some(format!("no such endpoint: {method} {path}")),
        });
    };
    if let Some(v) = key(wire, rec) {
        return Some(v);
    }
    let mut betas = Vec::new();
    if wire == Wire::Anthropic {
        match rec.header("anthropic-version") {
            None | Some("") => return refuse(Some(wire), 400, "anthropic-version: header is required"),
            Some(v) if !ANTHROPIC_VERSIONS.contains(&v) => {
                return refuse(Some(wire), 400, &format!("anthropic-version: invalid version {v:?}"))
            }
            _ => {}
        }
        match anthropic::betas(rec.header("anthropic-beta")) {
            Ok(b) => betas = b,
            Err(why) => return refuse(Some(wire), 400, &why),
        }
    }
    let content_type = rec.header("content-type").unwrap_or_default().to_ascii_lowercase();
    if !content_type.starts_with("application/json") {
        return refuse(
            Some(wire),
            400,
            &format!("Content-Type must be application/json (got {content_type:?})"),
        );
    }
    if let Some(e) = parse_error {
        let message = match wire {
            Wire::OpenAi | Wire::OpenAiResponses => format!("We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON: {e})"),
            Wire::Anthropic => format!("The request body is not valid JSON: {e}"),
            Wire::Gemini => format!("Invalid JSON payload received. {e}"),
        };
        return refuse(Some(wire), 400, &message);
    }
    let checked = match wire {
        Wire::OpenAi => openai_chat::validate(&rec.body),
        Wire::Anthropic => anthropic::validate(&rec.body, &betas),
        Wire::OpenAiResponses => openai_responses::validate(&rec.body),
        Wire::Gemini => gemini::validate(&rec.body, rec.model().unwrap_or_default()),
    };
    if let Err(reason) = checked {
        return refuse(Some(wire), 400, &reason);
    }
    if rec.model() == Some(UNKNOWN_MODEL) {
        return scripted(match wire {
            Wire::OpenAi | Wire::OpenAiResponses => openai_chat::error(
                404,
                &format!("The model `{UNKNOWN_MODEL}` does not exist or you do not have access to it."),
                "invalid_request_error",
                Some("model_not_found"),
            ),
            Wire::Anthropic => anthropic::error(404, "not_found_error", &format!("model: {UNKNOWN_MODEL}")),
            Wire::Gemini => gemini::error(
                404,
                &format!("models/{UNKNOWN_MODEL} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods."),
            ),
        });
    }
    None
}

/// The API key, where each provider expects it.
fn key(wire: Wire, rec: &Recorded) -> Option<Verdict> {
    match wire {
        Wire::OpenAi | Wire::OpenAiResponses => {
            let auth = rec.header("authorization").unwrap_or_default();
            let key = match auth.get(..7) {
                Some(p) if p.eq_ignore_ascii_case("bearer ") => auth[7..].trim(),
                _ => "",
            };
            if key.is_empty() {
                return Some(Verdict {
                    response: openai_chat::error(
                        401,
                        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from https://platform.openai.com/account/api-keys.",
                        "invalid_request_error",
                        None,
                    ),
                    rejected: Some("missing `Authorization: Bearer <key>` header".into()),
                });
            }
            if key == BAD_KEY {
                return scripted(openai_chat::error(
                    401,
                    &format!("Incorrect API key provided: {key}. You can find your API key at https://platform.openai.com/account/api-keys."),
                    "invalid_request_error",
                    Some("invalid_api_key"),
                ));
            }
        }
        Wire::Anthropic => {
            let key = rec.header("x-api-key").unwrap_or_default();
            if key.is_empty() {
                return Some(Verdict {
                    response: anthropic::error(401, "authentication_error", "x-api-key header is required"),
                    rejected: Some("missing x-api-key header".into()),
                });
            }
            if key == BAD_KEY {
                return scripted(anthropic::error(401, "authentication_error", "invalid x-api-key"));
            }
        }
        Wire::Gemini => {
            // The header, or (as the REST docs also allow) `?key=`.
            let from_query = rec
                .path
                .split_once('?')
                .and_then(|(_, q)| q.split('&').find_map(|kv| kv.strip_prefix("key=")));
            let key = rec.header("x-goog-api-key").or(from_query).unwrap_or_default();
            if key.is_empty() {
                return Some(Verdict {
                    response: gemini::error_with_status(
                        403,
                        "PERMISSION_DENIED",
                        "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
                    ),
                    rejected: Some("missing x-goog-api-key header".into()),
                });
            }
            if key == BAD_KEY {
                return scripted(gemini::error(400, "API key not valid. Please pass a valid API key."));
            }
        }
    }
    None
}
