package config

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/untrusted"
)

// A Grant is one thing the user approved for a project, as the project's
// approval record holds it: a name or a digest, never a value or a path.
type Grant struct {
	Kind Kind
	// Name is a variable's.
	Name string
	// Digest identifies a value an env file sets (a variable's), or a bind
	// (a mount's): changing either asks again.
	Digest string
}

// Kind is what a grant lets into the sandbox.
type Kind int

const (
	// Variable: an environment variable an env file or a repository's
	// settings pass, with the host's value or (Digest set) their own.
	Variable Kind = iota
	// Mount: a bind a repository's settings add.
	Mount
	// SSHAgent: the user's SSH agent, which a repository's settings ask for.
	SSHAgent
	// Network: the network a repository's settings turn back on over the
	// user's no-network.
	Network
)

func (g Grant) String() string {
	switch g.Kind {
	case Mount:
		return "mount:" + g.Digest
	case SSHAgent:
		return "with-ssh"
	case Network:
		return "network"
	}
	if g.Digest != "" {
		return g.Name + "=" + g.Digest
	}
	return g.Name
}

// ParseGrant reads a grant as String writes it.
func ParseGrant(s string) (Grant, error) {
	switch {
	case s == "with-ssh":
		return Grant{Kind: SSHAgent}, nil
	case s == "network":
		return Grant{Kind: Network}, nil
	case strings.HasPrefix(s, "mount:"):
		if d := strings.TrimPrefix(s, "mount:"); isDigest(d) {
			return Grant{Kind: Mount, Digest: d}, nil
		}
	default:
		name, digest, set := strings.Cut(s, "=")
		if environment.ValidName(name) && (!set || isDigest(digest)) {
			return Grant{Kind: Variable, Name: name, Digest: digest}, nil
		}
	}
	return Grant{}, fmt.Errorf("not an approval: \"%s\"", printable.Excerpt(s))
}

// digest is how a grant identifies what it approves: the first 8 bytes of
// its SHA-256, in hex.
func digest(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:8])
}

func isDigest(s string) bool {
	_, err := hex.DecodeString(s)
	return len(s) == 16 && err == nil && strings.ToLower(s) == s
}

// mountGrant approves a bind: its flag, source and destination.
func mountGrant(b mount.BindSpec) Grant {
	return Grant{Kind: Mount, Digest: digest(b.Flag(), b.Src, b.Dest)}
}

// An Item is one thing the project's files add, for the user to approve.
type Item struct {
	Grant Grant
	// Show is how the question names it, with the file it comes from.
	Show string
}

// Additions lists what the project's files add to the sandbox that the
// user's own configuration did not ask for: binds, the SSH agent and the
// network, then the env files' variables, by name.
func (l Launch) Additions(env environment.Env) []Item {
	items := slices.Clone(l.additions)
	var vars []Item
	for name, from := range env.From {
		if env.Own[name] {
			continue
		}
		g := Grant{Kind: Variable, Name: name}
		if v, ok := env.Values[name]; ok {
			g.Digest = digest(v)
		}
		vars = append(vars, Item{Grant: g, Show: name + " (from " + from + ")"})
	}
	slices.SortFunc(vars, func(a, b Item) int { return strings.Compare(a.Grant.Name, b.Grant.Name) })
	return append(items, vars...)
}

// Unapproved returns the items the approved grants do not cover.
func Unapproved(items []Item, approved []Grant) []Item {
	var out []Item
	for _, it := range items {
		if !slices.Contains(approved, it.Grant) {
			out = append(out, it)
		}
	}
	return out
}

// Without drops from the settings and the environment what unapproved
// names: --check's trial runs only what a launch would without asking.
func (l Launch) Without(env environment.Env, unapproved []Item) (Launch, environment.Env) {
	for _, it := range unapproved {
		switch g := it.Grant; g.Kind {
		case SSHAgent:
			l.WithSSH = false
		case Network:
			l.NoNetwork = true
		case Mount:
			l.Binds = slices.DeleteFunc(slices.Clone(l.Binds), func(b mount.BindSpec) bool { return mountGrant(b) == g })
		case Variable:
			env.Names = slices.DeleteFunc(slices.Clone(env.Names), func(name string) bool { return name == g.Name })
		}
	}
	return l, env
}

// ApprovalFile names the record, in an instance, of what the user approved
// for the project. The instance is writable from inside the sandbox, so the
// record is signed with a key the sandbox never sees: forged or damaged, it
// counts as no approval, and the user is asked again.
const ApprovalFile = "approved"

// approvalKey is the signing key, kept in the state directory outside every
// instance.
const approvalKey = "approval.key"

// approvalLimit is the most of an approval record claudebox reads: one
// line per grant, and the signature.
const approvalLimit = 1 << 20

// ReadApproval returns the grants recorded for the instance in dir, or nil
// when there is no valid record.
func ReadApproval(stateDir, dir string) []Grant {
	key, err := untrusted.ReadFile(stateDir, approvalKey, 32)
	if err != nil {
		return nil
	}
	b, err := untrusted.ReadFile(dir, ApprovalFile, approvalLimit)
	if errors.Is(err, fs.ErrNotExist) {
		// Its name until it held more than variables.
		b, err = untrusted.ReadFile(dir, "env-approved", approvalLimit)
	}
	if err != nil {
		return nil
	}
	body, mac, ok := bytes.Cut(b, []byte("mac "))
	if !ok || !hmac.Equal(bytes.TrimSpace(mac), []byte(sign(key, dir, body))) {
		return nil
	}
	var grants []Grant
	for _, line := range strings.Fields(string(body)) {
		g, err := ParseGrant(line)
		if err != nil {
			return nil
		}
		grants = append(grants, g)
	}
	return grants
}

// WriteApproval records items as approved for the instance in dir.
func WriteApproval(stateDir, dir string, items []Item) error {
	key, err := loadKey(stateDir)
	if err != nil {
		return err
	}
	var body []byte
	for _, it := range items {
		body = append(body, it.Grant.String()+"\n"...)
	}
	return untrusted.WriteFile(dir, ApprovalFile, append(body, "mac "+sign(key, dir, body)+"\n"...), 0o600)
}

// sign binds the record to its instance, so that it cannot be copied to
// another.
func sign(key []byte, dir string, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(filepath.Base(dir) + "\n"))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func loadKey(stateDir string) ([]byte, error) {
	if key, err := untrusted.ReadFile(stateDir, approvalKey, 32); err == nil && len(key) == 32 {
		return key, nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, untrusted.ErrTooLarge) {
		return nil, err
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return key, untrusted.WriteFile(stateDir, approvalKey, key, 0o600)
}
