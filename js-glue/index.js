// Sightline for Playwright and Puppeteer: see README.md.
export { attach } from "./src/attach.js";
export { CspError, CSP_ADVICE, HostilePageError } from "./src/frame-engine.js";
