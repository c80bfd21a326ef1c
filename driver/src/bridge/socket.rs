//! The WebSocket plumbing both of the bridge's connections use: a writer
//! task fed by a channel, and incoming frames reduced to text or a close.

use async_tungstenite::tokio::TokioAdapter;
use async_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use async_tungstenite::tungstenite::protocol::CloseFrame;
use async_tungstenite::tungstenite::Message;
use async_tungstenite::{WebSocketReceiver, WebSocketStream};
use futures::StreamExt;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use super::link::Outgoing;

pub type Ws = WebSocketStream<TokioAdapter<TcpStream>>;
pub type Receiver = WebSocketReceiver<TokioAdapter<TcpStream>>;

/// What came in on a socket.
pub enum Incoming {
    Text(String),
    /// Closed, with the peer's code and reason (1005 when it gave none).
    Closed(u16, String),
}

/// Splits a socket: frames sent on the returned channel are written in
/// order by a task of their own; the stream gives what comes in.
pub fn split(ws: Ws) -> (mpsc::UnboundedSender<Outgoing>, Receiver) {
    let (mut sink, stream) = ws.split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Outgoing>();
    tokio::spawn(async move {
        while let Some(out) = rx.recv().await {
            let closing = matches!(out, Outgoing::Close(..));
            let message = match out {
                Outgoing::Text(t) => Message::text(t),
                Outgoing::Close(code, reason) => Message::Close(Some(CloseFrame {
                    code: CloseCode::from(code),
                    reason: reason.into(),
                })),
            };
            if sink.send(message).await.is_err() || closing {
                break;
            }
        }
        let _ = sink.close(None).await;
    });
    (tx, stream)
}

/// The next text frame or the close (pings and binary frames are skipped).
pub async fn next(stream: &mut Receiver) -> Incoming {
    loop {
        match stream.next().await {
            Some(Ok(Message::Text(t))) => return Incoming::Text(t.to_string()),
            Some(Ok(Message::Close(frame))) => {
                return match frame {
                    Some(f) => Incoming::Closed(u16::from(f.code), f.reason.to_string()),
                    None => Incoming::Closed(1005, String::new()),
                }
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Incoming::Closed(1006, e.to_string()),
            None => return Incoming::Closed(1006, "the connection ended".into()),
        }
    }
}
