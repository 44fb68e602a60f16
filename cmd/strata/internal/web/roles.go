package web

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/strata-hpc/strata/db"
)

// Role is what a web login may see, as sacct lets Slurm users see jobs: a
// user their own jobs, an account coordinator the jobs of their accounts
// (and their own), an administrator everything. The basic-auth file gives
// each login its role after the hash:
//
//	login:pbkdf2-sha256$...:ROLE[:SLURMUSER]
//
// ROLE is admin, user or coordinator=ACCT[,ACCT...]; SLURMUSER is the Slurm
// user name the login stands for (default: the login name itself). A line
// without a role is a user's (its own jobs only): an upgrade never widens
// what a login sees.
type Role struct {
	// Kind is RoleAdmin, RoleUser or RoleCoordinator.
	Kind string
	// SlurmUser is the Slurm user of the login ("": the login name).
	SlurmUser string
	// Accounts are a coordinator's Slurm accounts.
	Accounts []string
	// Default: the line named no role (user scope by default).
	Default bool
}

// Role kinds.
const (
	RoleAdmin       = "admin"
	RoleUser        = "user"
	RoleCoordinator = "coordinator"
)

// ParseRole reads the role and Slurm user fields of a basic-auth line
// ("" and "": a user, by default).
func ParseRole(role, slurmUser string) (Role, error) {
	if strings.ContainsAny(slurmUser, " \t,:") {
		return Role{}, fmt.Errorf("slurm user %q: want one name without blanks, ',' or ':'", slurmUser)
	}
	r := Role{SlurmUser: slurmUser}
	kind, accts, hasAccts := strings.Cut(role, "=")
	switch {
	case role == "":
		r.Kind, r.Default = RoleUser, true
	case kind == RoleAdmin && !hasAccts, kind == RoleUser && !hasAccts:
		r.Kind = kind
	case kind == RoleCoordinator && hasAccts:
		r.Kind = kind
		for _, a := range strings.Split(accts, ",") {
			if a = strings.TrimSpace(a); a != "" {
				r.Accounts = append(r.Accounts, a)
			}
		}
		if len(r.Accounts) == 0 {
			return Role{}, errors.New("role coordinator= names no account")
		}
	default:
		return Role{}, fmt.Errorf("role %q: want admin, user or coordinator=ACCT[,ACCT]", role)
	}
	return r, nil
}

// Scope is what login, holding r, sees in the reports.
func (r Role) Scope(login string) db.Scope {
	if r.Kind == RoleAdmin {
		return db.Scope{}
	}
	user := r.SlurmUser
	if user == "" {
		user = login
	}
	return db.Scope{Limited: true, Users: []string{user}, Accounts: slices.Clone(r.Accounts)}
}

// String is the role as the basic-auth file writes it.
func (r Role) String() string {
	if r.Kind == RoleCoordinator {
		return RoleCoordinator + "=" + strings.Join(r.Accounts, ",")
	}
	return r.Kind
}

// scopeOf is the scope of the request's principal (signin.go): everything
// when no sign-in is configured (a page on loopback for its admin), else
// the principal's role.
func (s *server) scopeOf(r *http.Request) db.Scope {
	if !s.cfg.signs() {
		return db.Scope{}
	}
	p, ok := principalOf(r)
	if !ok { // signIn lets no such request through; refuse to widen
		return db.Scope{Limited: true}
	}
	return p.role.Scope(p.login)
}
