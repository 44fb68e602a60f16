package web

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"time"
)

// A request is signed in one of two ways (or served to everyone when
// neither is configured):
//
//   - by the site: a trusted reverse proxy (Config.TrustedProxies) that
//     authenticated the person passes the identity in Config.UserHeader
//     (X-Forwarded-User, Remote-User: Apache's REMOTE_USER, as Open
//     OnDemand and Open XDMoD deploy); the header from any other address is
//     ignored (proxy.go);
//   - by the basic-auth file (Config.Users), for small sites.
//
// The identity's role: admin when it is in Config.Admins, else the role of
// the basic-auth file's line of that name (which may name its Slurm user),
// else a user's (its own jobs). An identity that is no Slurm user name (an
// e-mail address, a Kerberos principal) and that no line maps sees nothing:
// a 403 page says so.

// principal is who a request is signed in as.
type principal struct {
	login string
	role  Role
}

type principalKey struct{}

func withPrincipal(r *http.Request, p principal) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
}

func principalOf(r *http.Request) (principal, bool) {
	p, ok := r.Context().Value(principalKey{}).(principal)
	return p, ok
}

// slurmUserName is what Slurm (a POSIX system) takes as a user name.
var slurmUserName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,31}$`)

// signs says whether any sign-in is configured.
func (c Config) signs() bool { return c.Users != nil || c.UserHeader != "" }

// signIn passes a signed-in request to h with its principal, and answers
// the others (401, 429, or 403 for an identity that maps to no Slurm user).
func (s *server) signIn(h http.Handler) http.Handler {
	var basic *login
	if s.cfg.Users != nil {
		basic = newLogin(s.cfg.Users, time.Now)
	}
	px := newProxies(s.cfg.TrustedProxies, s.cfg.UserHeader, s.cfg.Log)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client, fromProxy := px.client(r)
		if id := r.Header.Get(s.cfg.UserHeader); s.cfg.UserHeader != "" && fromProxy && id != "" {
			p, ok := s.siteIdentity(id)
			if !ok {
				s.cfg.Log.Warn().Str("identity", id).Msg("signed in by the proxy as no Slurm user: refused")
				s.render(w, r, http.StatusForbidden, "error", map[string]any{"Title": "No Slurm user", "Status": http.StatusForbidden,
					"Message": fmt.Sprintf("You are signed in as %q, which is not a Slurm user name, so there are no jobs to show you. "+
						"Ask the administrators to map this identity to your Slurm user.", id)})
				return
			}
			h.ServeHTTP(w, withPrincipal(r, p))
			return
		}
		if basic == nil {
			s.render(w, r, http.StatusUnauthorized, "error", map[string]any{"Title": "Not signed in", "Status": http.StatusUnauthorized,
				"Message": "Open this page through the site's sign-in (its web portal): it passes who you are to Strata."})
			return
		}
		user, ok := basic.authenticate(w, r, client)
		if !ok {
			return
		}
		h.ServeHTTP(w, withPrincipal(r, principal{login: user, role: s.roleOf(user)}))
	})
}

// siteIdentity is the principal of an identity the proxy passed, or false
// when it maps to no Slurm user.
func (s *server) siteIdentity(id string) (principal, bool) {
	role := s.roleOf(id)
	if role.Kind != RoleAdmin && role.SlurmUser == "" && !slurmUserName.MatchString(id) {
		return principal{}, false
	}
	return principal{login: id, role: role}, true
}

// roleOf is a signed-in login's role: admin when listed in Config.Admins,
// else its line's in the basic-auth file, else a user's.
func (s *server) roleOf(login string) Role {
	if slices.Contains(s.cfg.Admins, login) {
		return Role{Kind: RoleAdmin}
	}
	if role, ok := s.cfg.Roles[login]; ok {
		return role
	}
	return Role{Kind: RoleUser, Default: true}
}
