// Package dbadmin is `strata db`: schema migrations, the schema and sample
// partition status, sample retention and the per-job energy rollups of the
// Postgres database, with what each prints. The SQL is in package db; the
// flags and the connection live in cmd/strata.
package dbadmin
