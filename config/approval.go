package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/proxy"
	"github.com/claudebox/claudebox/untrusted"
)

// A Grant is one thing the user approved for a project, as the project's
// approval record holds it: a name or a digest, never a value or a path.
type Grant struct {
	kind grantKind
	// name is a variable's.
	name string
	// digest identifies a value an env file sets (a variable's), or a bind
	// (a mount's): changing either asks again.
	digest string
}

// grantKind is what a grant lets into the sandbox.
type grantKind int

const (
	// kindVariable: an environment variable an env file or a repository's
	// settings pass, with the host's value or (digest set) their own.
	kindVariable grantKind = iota
	// kindMount: a bind a repository's settings add.
	kindMount
	// kindSSHAgent: the user's SSH agent, which a repository's settings ask for.
	kindSSHAgent
	// kindGPGAgent: the user's gpg-agent, which a repository's settings ask
	// for.
	kindGPGAgent
	// kindNetwork: a network (name) a repository's settings ask for, wider
	// than the user's own.
	kindNetwork
	// kindHost: a host (name, as proxy.Rule writes it) a repository's
	// settings allow on the filtered network.
	kindHost
	// kindMCP: an MCP server's definition carried in from ~/.claude.json.
	kindMCP
	// kindPublish: a port (name, HOST:INSIDE) a repository's settings
	// publish; kindForward: a host port (name) they forward in.
	kindPublish
	kindForward
	// kindGPU: the host's GPU devices, which a repository's settings ask
	// for.
	kindGPU
)

func (g Grant) String() string {
	switch g.kind {
	case kindMount:
		return "mount:" + g.digest
	case kindSSHAgent:
		return "with-ssh"
	case kindGPGAgent:
		return "with-gpg"
	case kindGPU:
		return "gpu"
	case kindNetwork:
		// The filtered network was the one network before there were
		// several: its record stays as it was.
		if g.name == NetworkFiltered {
			return "network"
		}
		return "network:" + g.name
	case kindHost:
		return "allow-host:" + g.name
	case kindMCP:
		return "mcp:" + g.name + "=" + g.digest
	case kindPublish:
		return "publish:" + g.name
	case kindForward:
		return "forward:" + g.name
	}
	if g.digest != "" {
		return g.name + "=" + g.digest
	}
	return g.name
}

// parseGrant reads a grant as String writes it.
func parseGrant(s string) (Grant, error) {
	switch {
	case s == "with-ssh":
		return Grant{kind: kindSSHAgent}, nil
	case s == "with-gpg":
		return Grant{kind: kindGPGAgent}, nil
	case s == "gpu":
		return Grant{kind: kindGPU}, nil
	case s == "network":
		return Grant{kind: kindNetwork, name: NetworkFiltered}, nil
	case s == "network:"+NetworkHost:
		return Grant{kind: kindNetwork, name: NetworkHost}, nil
	case strings.HasPrefix(s, "allow-host:"):
		if r, err := proxy.ParseRule(strings.TrimPrefix(s, "allow-host:")); err == nil {
			return Grant{kind: kindHost, name: r.String()}, nil
		}
	case strings.HasPrefix(s, "mcp:"):
		name, d, _ := strings.Cut(strings.TrimPrefix(s, "mcp:"), "=")
		if instance.ValidServerName(name) && isDigest(d) {
			return Grant{kind: kindMCP, name: name, digest: d}, nil
		}
	case strings.HasPrefix(s, "publish:"):
		if p, err := parsePublish(strings.TrimPrefix(s, "publish:")); err == nil {
			return Grant{kind: kindPublish, name: p.String()}, nil
		}
	case strings.HasPrefix(s, "forward:"):
		if n, err := parsePort(strings.TrimPrefix(s, "forward:")); err == nil {
			return Grant{kind: kindForward, name: strconv.Itoa(n)}, nil
		}
	case strings.HasPrefix(s, "mount:"):
		if d := strings.TrimPrefix(s, "mount:"); isDigest(d) {
			return Grant{kind: kindMount, digest: d}, nil
		}
	default:
		name, digest, set := strings.Cut(s, "=")
		if environment.ValidName(name) && (!set || isDigest(digest)) {
			return Grant{kind: kindVariable, name: name, digest: digest}, nil
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
	return Grant{kind: kindMount, digest: digest(b.Flag(), b.Src, b.Dest)}
}

// An Item is one thing the project's files add, for the user to approve.
type Item struct {
	grant Grant
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
		g := Grant{kind: kindVariable, name: name}
		if v, ok := env.Values[name]; ok {
			g.digest = digest(v)
		}
		vars = append(vars, Item{grant: g, Show: name + " (from " + from + ")"})
	}
	slices.SortFunc(vars, func(a, b Item) int { return strings.Compare(a.grant.name, b.grant.name) })
	return append(items, vars...)
}

// MCPServers picks the servers the launch names out of those the host's
// ~/.claude.json offers, and lists what of them needs approval: a
// definition whose env or headers hold values (tokens, most often), and
// any server a repository's file names. Each is approved by its
// definition's digest, so a changed definition asks again.
func (l Launch) MCPServers(offered map[string]json.RawMessage) (map[string]json.RawMessage, []Item, error) {
	var items []Item
	servers := map[string]json.RawMessage{}
	for _, m := range l.MCP {
		def, ok := offered[m.Name]
		if !ok {
			return nil, nil, hint.Errorf("claude mcp list, run here on the host, names the servers claudebox can carry in",
				"no MCP server %s in ~/.claude.json, for you or for this project", m.Name)
		}
		servers[m.Name] = def
		g := Grant{kind: kindMCP, name: m.Name, digest: digest(string(def))}
		switch {
		case m.From != "":
			items = append(items, Item{grant: g, Show: "MCP server " + m.Name + " (from " + m.From + ")"})
		case holdsValues(def):
			items = append(items, Item{grant: g, Show: "MCP server " + m.Name + " (its env or headers hold values)"})
		}
	}
	return servers, items, nil
}

// holdsValues reports whether an MCP server's definition sets a value in
// its env or headers (Codex's http_headers, bearer_token; Gemini's oauth
// too); one that cannot be read is taken to.
func holdsValues(def json.RawMessage) bool {
	var d struct {
		Env         map[string]any `json:"env"`
		Headers     map[string]any `json:"headers"`
		HTTPHeaders map[string]any `json:"http_headers"`
		OAuth       map[string]any `json:"oauth"`
		BearerToken any            `json:"bearer_token"`
	}
	if json.Unmarshal(def, &d) != nil || d.BearerToken != nil {
		return true
	}
	for _, m := range []map[string]any{d.Env, d.Headers, d.HTTPHeaders, d.OAuth} {
		for _, v := range m {
			if v != "" {
				return true
			}
		}
	}
	return false
}

// Unapproved returns the items the approved grants do not cover.
func Unapproved(items []Item, approved []Grant) []Item {
	var out []Item
	for _, it := range items {
		if !slices.Contains(approved, it.grant) {
			out = append(out, it)
		}
	}
	return out
}

// Without drops from the settings and the environment what unapproved
// names: --check's trial runs only what a launch would without asking.
func (l Launch) Without(env environment.Env, unapproved []Item) (Launch, environment.Env) {
	for _, it := range unapproved {
		switch g := it.grant; g.kind {
		case kindSSHAgent:
			l.WithSSH = false
		case kindGPGAgent:
			l.WithGPG = false
		case kindGPU:
			l.GPU = false
		case kindNetwork:
			l.Network = l.ownNetwork
		case kindHost:
			l.Hosts.Allow = slices.DeleteFunc(slices.Clone(l.Hosts.Allow), func(r proxy.Rule) bool { return r.String() == g.name })
		case kindMount:
			l.Binds = slices.DeleteFunc(slices.Clone(l.Binds), func(b mount.BindSpec) bool { return mountGrant(b) == g })
		case kindPublish:
			l.Publish = slices.DeleteFunc(slices.Clone(l.Publish), func(p mount.Publish) bool { return p.String() == g.name })
		case kindForward:
			l.Forward = slices.DeleteFunc(slices.Clone(l.Forward), func(n int) bool { return strconv.Itoa(n) == g.name })
		case kindMCP:
			l.MCP = slices.DeleteFunc(slices.Clone(l.MCP), func(m MCPName) bool { return m.Name == g.name })
		case kindVariable:
			env.Names = slices.DeleteFunc(slices.Clone(env.Names), func(name string) bool { return name == g.name })
		}
	}
	return l, env
}

// The record of what the user approved for a project is kept in
// claudebox's state, one file per instance, out of every sandbox's reach:
// kept in the instance, which the sandbox writes, an older record could be
// put back (a signature would not tell), and with it grants the user had
// since withdrawn.

// approvalLimit is the most of an approval record claudebox reads: one
// line per grant.
const approvalLimit = 1 << 20

// ReadApproval returns the grants recorded for the project at root, or nil
// when there is no valid record.
func ReadApproval(stateDir, root string) []Grant {
	dir, name := instance.RecordPath(stateDir, instance.ApprovalRecords, root)
	b, err := untrusted.ReadFile(dir, name, approvalLimit)
	if err != nil {
		return nil
	}
	var grants []Grant
	for _, line := range strings.Fields(string(b)) {
		g, err := parseGrant(line)
		if err != nil {
			return nil
		}
		grants = append(grants, g)
	}
	return grants
}

// WriteApproval records items as approved for the project at root.
func WriteApproval(stateDir, root string, items []Item) error {
	dir, name := instance.RecordPath(stateDir, instance.ApprovalRecords, root)
	var body []byte
	for _, it := range items {
		body = append(body, it.grant.String()+"\n"...)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return untrusted.WriteFile(dir, name, body, 0o600)
}
