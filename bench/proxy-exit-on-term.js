/**
 * Preloaded (`--import`) into the proxy when bench/proxy.js profiles it: a host closing its stdio ends the proxy
 * with SIGTERM, which would kill it before `--cpu-prof` writes the profile; exiting on the signal writes it.
 */
process.once("SIGTERM", () => process.exit(143));
