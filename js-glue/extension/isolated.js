// Runs first in the extension's isolated world, before the engine bundle:
// marks the world as one, as the driver marks its own, so the engine reads
// no `onclick` handler properties here (they belong to the page's world and
// read null; the main-world hook announces the page's click handlers).
globalThis.__sightlineIsolated = true;
