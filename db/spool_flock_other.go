//go:build !(linux || darwin || freebsd)

package db

import "os"

// tryFlock cannot lock here: the spool is not guarded against a second
// process (Strata's collectors run on Linux).
func tryFlock(*os.File) (bool, error) { return true, nil }
