//! What the session tests and the web API tests share: deals that differ only in hidden tiles.

use toybattle::rules::{Colour, Deal};

/// `base` with, in each colour, the last tile of the reserve swapped with a removed tile of
/// another troop: a deal that differs from `base` only in tiles nobody sees until that last
/// reserve tile is drawn.
pub fn hidden_twin(base: &Deal) -> Deal {
    let mut other = base.clone();
    for c in Colour::BOTH {
        let last = other.reserve[c].len() - 1;
        let j = (0..4)
            .find(|&j| other.removed[c][j] != other.reserve[c][last])
            .expect("some removed tile differs from the last reserve tile");
        let removed = other.removed[c][j];
        other.removed[c][j] = std::mem::replace(&mut other.reserve[c][last], removed);
    }
    other
}
