package web

import (
	"bufio"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/internal/secretfile"
)

// Password hashes in the basic-auth file are PBKDF2-HMAC-SHA256 (the Go
// standard library has it; bcrypt is not a dependency):
//
//	user:pbkdf2-sha256$ITERATIONS$SALT$HASH     (SALT, HASH: unpadded base64)
//
// `strata serve passwd USER` prints such a line for a password read from
// stdin. Lines starting with '#' and blank lines are ignored.
const (
	hashScheme     = "pbkdf2-sha256"
	hashIterations = 210000
	hashLen        = 32
)

// NoPassword in a line's hash field: the login cannot sign in with a
// password; the line gives a role (and Slurm user) to the identity of that
// name that a trusted proxy signs in (signin.go).
const NoPassword = "!"

// Htpasswd maps a user to the stored hash line.
type Htpasswd map[string]string

// ReadHtpasswd reads a basic-auth file's hashes (ReadUsers: with roles).
func ReadHtpasswd(path string) (Htpasswd, error) {
	u, err := ReadUsers(path)
	return u.Hashes, err
}

// Users is a basic-auth file: each login's hash and role.
type Users struct {
	Hashes Htpasswd
	Roles  map[string]Role
}

// Unroled returns the logins whose line names no role (they have a user's
// scope), sorted.
func (u Users) Unroled() []string {
	var out []string
	for login, r := range u.Roles {
		if r.Default {
			out = append(out, login)
		}
	}
	sort.Strings(out)
	return out
}

// ReadUsers reads a basic-auth file (login:HASH[:ROLE[:SLURMUSER]] lines,
// see Role); it refuses one that others can read, or that is owned by
// neither the user Strata runs as nor root.
func ReadUsers(path string) (Users, error) {
	if _, err := secretfile.Check("basic auth file", path); err != nil {
		return Users{}, fmt.Errorf("read basic auth file: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return Users{}, fmt.Errorf("read basic auth file: %w", err)
	}
	defer f.Close()
	users := Users{Hashes: Htpasswd{}, Roles: map[string]Role{}}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, ":")
		for len(fields) < 4 {
			fields = append(fields, "")
		}
		user, hash := fields[0], fields[1]
		if _, _, _, err := parseHash(hash); len(fields) > 4 || user == "" || (err != nil && hash != NoPassword) {
			return Users{}, fmt.Errorf("basic auth file %s line %d: want user:%s$ITER$SALT$HASH[:ROLE[:SLURMUSER]] "+
				"or user:%s:ROLE[:SLURMUSER] (see strata serve passwd)", path, n, hashScheme, NoPassword)
		}
		role, err := ParseRole(fields[2], fields[3])
		if err != nil {
			return Users{}, fmt.Errorf("basic auth file %s line %d: %w", path, n, err)
		}
		users.Hashes[user], users.Roles[user] = hash, role
	}
	if err := sc.Err(); err != nil {
		return Users{}, fmt.Errorf("read basic auth file: %w", err)
	}
	if len(users.Hashes) == 0 {
		return Users{}, fmt.Errorf("basic auth file %s has no users", path)
	}
	return users, nil
}

func parseHash(s string) (iter int, salt, sum []byte, err error) {
	parts := strings.Split(s, "$")
	if len(parts) != 4 || parts[0] != hashScheme {
		return 0, nil, nil, errors.New("unknown hash format")
	}
	if iter, err = strconv.Atoi(parts[1]); err != nil || iter < 10000 {
		return 0, nil, nil, errors.New("bad iteration count")
	}
	if salt, err = base64.RawStdEncoding.DecodeString(parts[2]); err != nil {
		return 0, nil, nil, err
	}
	if sum, err = base64.RawStdEncoding.DecodeString(parts[3]); err != nil || len(sum) == 0 {
		return 0, nil, nil, errors.New("bad hash")
	}
	return iter, salt, sum, nil
}

// HashPassword returns the stored form of a password with a fresh salt.
func HashPassword(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	sum, err := pbkdf2.Key(sha256.New, password, salt, hashIterations, hashLen)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return fmt.Sprintf("%s$%d$%s$%s", hashScheme, hashIterations,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(sum)), nil
}

func checkPassword(stored, password string) bool {
	iter, salt, want, err := parseHash(stored)
	if err != nil {
		return false
	}
	got, err := pbkdf2.Key(sha256.New, password, salt, iter, len(want))
	return err == nil && subtle.ConstantTimeCompare(got, want) == 1
}

// basicAuth guards h with the users' passwords (login.go: the cache of
// verified headers, the rate limits and the equal cost of unknown users).
func basicAuth(users Htpasswd, h http.Handler) http.Handler {
	return newLogin(users, time.Now).guard(h)
}
