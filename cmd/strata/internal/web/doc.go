// Package web is the read-only web page of `strata serve`: the overview
// and job pages (server-rendered tables, embedded charts, no CDN), the JSON
// API (the documents of `strata report --json`), basic auth with PBKDF2
// hashes, and the HTTP server's lifecycle (Run: auth file, TLS, listener,
// graceful shutdown). Numbers and tables come from package report, so the
// page shows what the CLI prints. Templates and static files are embedded
// from templates/ and static/.
package web
