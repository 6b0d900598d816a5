//! What every request passes before a call answers it, and what every error looks like after.
//!
//! The page has no login, so the server itself keeps other pages out: a request must name this
//! server by one of its own names (a page on another site that renames itself to this machine,
//! DNS rebinding, would otherwise read the answers), a call that changes a game must come from
//! this server's own page (the browser's `Origin`), and a body must be JSON (a plain form or
//! `text/plain` post, which a browser sends across sites without asking, is refused). A body is
//! read up to [`BODY_LIMIT`] and within the client timeout, so a slow or huge body holds nothing
//! for long. Whatever answers an error, a call, axum's method routing or this guard, the page
//! gets it as `{"error": "..."}` in words.

use super::ApiError;
use axum::body::Body;
use axum::http::uri::Authority;
use axum::http::{header, HeaderMap, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tower::ServiceExt;

/// The largest request body read (a record file for the replay viewer is the largest the page
/// sends, a few tens of KiB).
pub const BODY_LIMIT: usize = 2 * 1024 * 1024;

/// How much of a non-JSON error body is kept when it is put in words.
const ERROR_TEXT_LIMIT: usize = 4096;

/// The checks of one server: the address it is bound to and how long a body may take.
#[derive(Clone, Debug)]
pub struct Guard {
    bound: SocketAddr,
    timeout: Duration,
}

impl Guard {
    /// The checks of a server bound to `bound` (its real port, when port 0 was asked for).
    pub fn new(bound: SocketAddr, timeout: Duration) -> Guard {
        Guard { bound, timeout }
    }

    /// Whether `authority` (a `Host` header, or the host and port of an `Origin`) names this
    /// server: `127.0.0.1`, `localhost`, `[::1]` or the address it is bound to, with its port.
    /// Bound to every interface (`0.0.0.0`, `::`), any IP address is taken as its name, since
    /// the machine's addresses are not known here and DNS rebinding needs a domain name.
    fn names_this_server(&self, authority: &str) -> bool {
        let Ok(authority) = authority.parse::<Authority>() else {
            return false;
        };
        if authority.as_str().contains('@')
            || authority.port_u16().unwrap_or(80) != self.bound.port()
        {
            return false;
        }
        let host = authority.host();
        if host.eq_ignore_ascii_case("localhost") {
            return true;
        }
        let ip = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host)
            .parse::<IpAddr>();
        match ip {
            Ok(ip) => {
                let loopback = [
                    IpAddr::V4(Ipv4Addr::LOCALHOST),
                    IpAddr::V6(Ipv6Addr::LOCALHOST),
                ];
                loopback.contains(&ip) || ip == self.bound.ip() || self.bound.ip().is_unspecified()
            }
            Err(_) => false,
        }
    }

    /// This server's names, as an error message lists them.
    fn names(&self) -> String {
        let port = self.bound.port();
        let mut names = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        let bound = self.bound.to_string();
        if self.bound.ip().is_unspecified() {
            names.push(format!("any IP address of this machine with port {port}"));
        } else if !names.contains(&bound) {
            names.push(bound);
        }
        names.join(", ")
    }

    /// Refuses a request that names another host.
    fn check_host(&self, request: &Request<Body>) -> Result<(), ApiError> {
        let host = match request.uri().authority() {
            Some(a) => a.as_str().to_string(),
            None => header_text(request.headers(), header::HOST)
                .ok_or_else(|| {
                    ApiError::BadRequest("the request names no host (no Host header)".into())
                })?
                .to_string(),
        };
        if self.names_this_server(&host) {
            Ok(())
        } else {
            Err(ApiError::Forbidden(format!(
                "this server answers only to its own names ({}), not to the host '{host}': \
                 another site's page cannot read it",
                self.names()
            )))
        }
    }

    /// Refuses a call that may change a game (any method but GET and HEAD) sent by a page of
    /// another origin. Browsers name the page in `Origin`; a program that names none (curl, a
    /// test) is not a page another site could have made the browser run.
    fn check_origin(&self, request: &Request<Body>) -> Result<(), ApiError> {
        if matches!(*request.method(), Method::GET | Method::HEAD) {
            return Ok(());
        }
        let Some(origin) = header_text(request.headers(), header::ORIGIN) else {
            return Ok(());
        };
        let own = origin
            .strip_prefix("http://")
            .is_some_and(|authority| self.names_this_server(authority));
        if own {
            Ok(())
        } else {
            Err(ApiError::Forbidden(format!(
                "a page from '{origin}' cannot play here: only this server's own page ({}) may \
                 change games",
                self.names()
            )))
        }
    }

    /// Reads the body whole, up to [`BODY_LIMIT`] and within the client timeout, after checking
    /// that it is JSON; the request goes on with the body read.
    async fn read_body(&self, request: Request<Body>) -> Result<Request<Body>, ApiError> {
        let (parts, body) = request.into_parts();
        let length = header_text(&parts.headers, header::CONTENT_LENGTH)
            .and_then(|l| l.trim().parse::<u64>().ok());
        let chunked = parts.headers.contains_key(header::TRANSFER_ENCODING);
        if length.unwrap_or(0) == 0 && !chunked {
            return Ok(Request::from_parts(parts, body));
        }
        let content_type = header_text(&parts.headers, header::CONTENT_TYPE).unwrap_or("");
        let essence = content_type.split(';').next().unwrap_or("").trim();
        if !essence.eq_ignore_ascii_case("application/json") {
            return Err(ApiError::UnsupportedMediaType(format!(
                "a request body must be JSON sent as 'Content-Type: application/json', not '{}'",
                if content_type.is_empty() {
                    "(none)"
                } else {
                    content_type
                }
            )));
        }
        let too_large = || {
            ApiError::PayloadTooLarge(format!(
                "the request body is larger than the server's limit of {} MiB",
                BODY_LIMIT / (1024 * 1024)
            ))
        };
        if length.is_some_and(|l| l > BODY_LIMIT as u64) {
            return Err(too_large());
        }
        let reading = Limited::new(body, BODY_LIMIT).collect();
        let bytes = match tokio::time::timeout(self.timeout, reading).await {
            Err(_) => {
                return Err(ApiError::Timeout(format!(
                    "the request body did not arrive within {} s",
                    self.timeout.as_secs_f64()
                )))
            }
            Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => return Err(too_large()),
            Ok(Err(e)) => {
                return Err(ApiError::BadRequest(format!(
                    "the request body could not be read: {e}"
                )))
            }
            Ok(Ok(collected)) => collected.to_bytes(),
        };
        Ok(Request::from_parts(parts, Body::from(bytes)))
    }
}

/// A header's value as text, if present and readable.
fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Answers one request: the checks first, then the call `app` routes it to, then its error in
/// words. The guard wraps the whole router, not each route, so that axum's answer to a wrong
/// method still says which methods the call takes (its `Allow` header).
pub async fn answer(
    guard: Arc<Guard>,
    app: Router,
    request: Request<hyper::body::Incoming>,
) -> Result<Response, Infallible> {
    let request = request.map(Body::new);
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let admitted = async {
        guard.check_host(&request)?;
        guard.check_origin(&request)?;
        guard.read_body(request).await
    };
    Ok(match admitted.await {
        Ok(request) => {
            let response = app.oneshot(request).await?;
            in_words(response, &method, &path).await
        }
        Err(e) => e.into_response(),
    })
}

/// An error answered by something other than a call (axum's method routing, an extractor) in
/// the one shape `{"error": ...}`; everything else as it is.
async fn in_words(response: Response, method: &Method, path: &str) -> Response {
    let status = response.status();
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || json {
        return response;
    }
    if status == StatusCode::METHOD_NOT_ALLOWED {
        let allow = response.headers().get(header::ALLOW).cloned();
        let takes = allow
            .as_ref()
            .and_then(|a| a.to_str().ok())
            .unwrap_or("other methods")
            .to_string();
        let mut answer = ApiError::MethodNotAllowed(format!(
            "{method} is not a call of '{path}': it takes {takes}"
        ))
        .into_response();
        if let Some(allow) = allow {
            answer.headers_mut().insert(header::ALLOW, allow);
        }
        return answer;
    }
    let text = match Limited::new(response.into_body(), ERROR_TEXT_LIMIT)
        .collect()
        .await
    {
        Ok(body) => String::from_utf8_lossy(&body.to_bytes()).trim().to_string(),
        Err(_) => String::new(),
    };
    let words = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_lowercase()
    } else {
        text
    };
    ApiError::Status(status, words).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(bound: &str) -> Guard {
        Guard::new(bound.parse().unwrap(), Duration::from_secs(10))
    }

    #[test]
    fn a_server_answers_to_its_loopback_names_and_its_own_address_with_its_port() {
        let loopback = guard("127.0.0.1:8137");
        for ok in [
            "127.0.0.1:8137",
            "localhost:8137",
            "LOCALHOST:8137",
            "[::1]:8137",
        ] {
            assert!(loopback.names_this_server(ok), "{ok}");
        }
        for refused in [
            "127.0.0.1:8138",
            "127.0.0.1",
            "localhost",
            "evil.example:8137",
            "localhost.evil.example:8137",
            "10.0.0.1:8137",
            "::1:8137",
            "a@localhost:8137",
            "",
        ] {
            assert!(!loopback.names_this_server(refused), "{refused}");
        }
        let on_80 = guard("127.0.0.1:80");
        assert!(on_80.names_this_server("localhost") && on_80.names_this_server("127.0.0.1:80"));
        let other = guard("127.0.0.2:9000");
        assert!(
            other.names_this_server("127.0.0.2:9000") && other.names_this_server("localhost:9000")
        );
        let v6 = guard("[::1]:9000");
        assert!(v6.names_this_server("[::1]:9000") && !v6.names_this_server("[::2]:9000"));
    }

    /// Bound to every interface, the machine's addresses are not known: any IP address is taken
    /// as its name (DNS rebinding needs a domain name), never another domain name.
    #[test]
    fn a_server_on_every_interface_answers_to_any_address_but_no_other_name() {
        let all = guard("0.0.0.0:8137");
        assert!(all.names_this_server("192.168.1.20:8137"));
        assert!(all.names_this_server("[fe80::1]:8137"));
        assert!(!all.names_this_server("192.168.1.20:8138"));
        assert!(!all.names_this_server("evil.example:8137"));
        assert!(all
            .names()
            .contains("any IP address of this machine with port 8137"));
    }
}
