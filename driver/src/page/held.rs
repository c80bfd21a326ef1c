//! The mouse buttons, and what a caller holds down between calls: a
//! button pressed by `mouseDown` until `mouseUp`, keys pressed by `keyDown`
//! until `keyUp`. Plain data, so the page handle can own it without
//! reaching into the input code (`input.rs` sends the events).

use chromiumoxide::cdp::browser_protocol::input::MouseButton;

/// Mouse buttons held, as CDP's `buttons` bit field.
pub(crate) const LEFT_BUTTON: i64 = 1;
const RIGHT_BUTTON: i64 = 2;
const MIDDLE_BUTTON: i64 = 4;

/// Which mouse button a click uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClickButton {
    #[default]
    Left,
    Right,
    Middle,
}

impl ClickButton {
    /// `left`, `right`, `middle`: the tools' word for it.
    pub fn name(self) -> &'static str {
        match self {
            ClickButton::Left => "left",
            ClickButton::Right => "right",
            ClickButton::Middle => "middle",
        }
    }

    /// CDP's button, and its bit in the `buttons` field.
    pub(crate) fn cdp(self) -> (MouseButton, i64) {
        match self {
            ClickButton::Left => (MouseButton::Left, LEFT_BUTTON),
            ClickButton::Right => (MouseButton::Right, RIGHT_BUTTON),
            ClickButton::Middle => (MouseButton::Middle, MIDDLE_BUTTON),
        }
    }
}

/// A CDP button's bit in the `buttons` field (0: back, forward, none).
pub(crate) fn button_bit(button: &MouseButton) -> i64 {
    [ClickButton::Left, ClickButton::Right, ClickButton::Middle]
        .into_iter()
        .map(ClickButton::cdp)
        .find(|(b, _)| b == button)
        .map_or(0, |(_, bit)| bit)
}

/// What a caller holds down between calls. Every mouse event carries it,
/// as a user's would: a move with the button held drags, a click with
/// Shift held extends a selection.
#[derive(Debug, Default)]
pub(crate) struct Held {
    /// The button, and where it went down.
    pub button: Option<(ClickButton, (f64, f64))>,
    /// The keys, in the order pressed.
    pub keys: Vec<HeldKey>,
}

/// A key held down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HeldKey {
    /// `KeyboardEvent.code`: what tells keys apart (`a` and `A` are KeyA).
    pub code: &'static str,
    /// `KeyboardEvent.key`, as the tools name it.
    pub key: String,
    /// Its modifier bit (0 for a key that is no modifier).
    pub bit: i64,
}

impl Held {
    /// The held keys' modifier bits.
    pub fn modifier_bits(&self) -> i64 {
        self.keys.iter().fold(0, |bits, k| bits | k.bit)
    }

    /// The held button's bit of CDP's `buttons` field.
    pub fn button_bits(&self) -> i64 {
        self.button.map_or(0, |(b, _)| b.cdp().1)
    }

    /// (modifier bits, buttons bits): what an event sent now carries.
    pub fn as_event_bits(&self) -> (i64, i64) {
        (self.modifier_bits(), self.button_bits())
    }
}
