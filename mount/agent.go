package mount

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/project"
)

// AgentConfig is another agent CLI's configuration directory as the
// sandbox sees it, from the agent's row (package agent) and the probe:
// rebuilt in a tmpfs like ~/.claude, its entries read-only, the files it
// saves as private copies, its login never there, and its per-project
// state bound from the agent's directory in the instance.
type AgentConfig struct {
	// Name is the agent's, and its directory in the instance.
	Name string
	// Dir is its configuration directory, under $HOME.
	Dir string
	// Entries are the host's entries of Dir shown read-only; Copies, its
	// files shown as private copies.
	Entries []string
	Copies  []Copy
	// Frozen are directories of Dir whose entries are shown one by one,
	// as the launch found them, in a directory of the sandbox's that
	// stays read-only as the host's is (an extension's).
	Frozen []string
	// Links are the links among Frozen's entries, made again as they
	// are: what they lead to is not followed.
	Links []HostPath
	// State are Dir's entries bound from the instance ("/" ends a
	// directory's name).
	State []string
	// Data are files made for it (path inside: content), read-only.
	Data map[string]string
	// Config is its configuration file, a link to ConfigCopy, in its
	// state (which the launch writes): it saves it by rename.
	Config, ConfigCopy string
	// Login is the file inside holding a phantom login (LoginContent,
	// with proxy.PhantomMark for the phantom), "" when a variable holds it.
	Login, LoginContent string
	// Env is set inside (NAME=VALUE, no secret).
	Env []string
	// Instructions is the file it reads as the user's own instructions
	// for every project, shown as a private read-only copy of the host's
	// (InstructionsHost, "" when it has none) with this sandbox's facts,
	// SANDBOX.md, after it (AddSandboxMD); "" when it reads none.
	Instructions, InstructionsHost string
	// Secrets are the files of its login, which never enter; SandboxOff,
	// how its own sandbox is turned off. Both for SANDBOX.md.
	Secrets    []string
	SandboxOff string
	// LeftOut names what the private copy of its settings left out (names
	// only), for the launch's notice.
	LeftOut []string
	// Own are mounted over Entries: what in them may hold the user's
	// credential, hidden or copied without it (named in
	// CredentialsLeftOut).
	Own                []Mount
	CredentialsLeftOut []string
}

// addAgentConfig rebuilds the agent's configuration directory.
func (p *Plan) addAgentConfig(a *AgentConfig, inst string) {
	p.add(AgentFiles, Tmpfs, "", a.Dir, "~/"+filepath.Base(a.Dir)+", private: what "+a.Name+" creates here is lost at exit; its login is not here")
	for _, d := range a.Frozen {
		p.add(AgentFiles, Tmpfs, "", d, "the real "+filepath.Base(a.Dir)+"'s "+filepath.Base(d)+" as the launch found it: what the host adds during the session is not shown")
	}
	for _, e := range a.Entries {
		p.add(AgentFiles, RoBindTry, e, e, "the real "+filepath.Base(a.Dir)+"'s "+filepath.Base(e)+", read-only")
	}
	for _, l := range a.Links {
		p.add(AgentFiles, Symlink, l.Link, l.Path, "a link in the real "+filepath.Base(a.Dir)+", as it is")
	}
	p.Mounts = append(p.Mounts, a.Own...)
	for _, d := range a.Frozen {
		p.add(AgentFiles, RemountRO, "", d, "read-only, as the host's")
	}
	p.CredentialsLeftOut = append(p.CredentialsLeftOut, a.CredentialsLeftOut...)
	for _, c := range a.Copies {
		p.Mounts = append(p.Mounts, Mount{Kind: BindData, Src: c.Src, Dest: c.Path, Checked: c.ID, Role: AgentFiles, Why: "a private copy: " + a.Name + " can save it, the host's file stays as it is"})
	}
	if a.Config != "" {
		p.add(AgentFiles, Symlink, a.ConfigCopy, a.Config, "a copy of the host's, made at each launch with the user's trust in this project; "+a.Name+" saves it by rename, the host's file stays as it is")
	}
	for _, s := range a.State {
		p.add(AgentFiles, Bind, filepath.Join(inst, project.AgentsDir, a.Name, s), filepath.Join(a.Dir, strings.TrimSuffix(s, "/")), "this project's "+a.Name+" state: other projects' are not visible")
	}
	if a.Instructions != "" {
		p.Mounts = append(p.Mounts, Mount{Kind: RoBindData, Dest: a.Instructions, Content: a.InstructionsHost, Why: "a private read-only copy of your " + filepath.Base(a.Instructions) + " with this sandbox's facts (SANDBOX.md) after it", Role: AgentFiles})
	}
	paths := make([]string, 0, len(a.Data))
	for path := range a.Data {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		p.Mounts = append(p.Mounts, Mount{Kind: RoBindData, Dest: path, Content: a.Data[path], Why: "a private copy of " + a.Name + "'s settings, with claudebox's: its own sandbox and telemetry off, the login it uses here", Role: AgentFiles})
	}
	if a.Login != "" {
		p.Mounts = append(p.Mounts, Mount{Kind: RoBindData, Dest: a.Login, Content: a.LoginContent, ownText: true, Why: "a phantom login for this session: the proxy puts the real one in its place, and refreshes it on the host", Role: AgentFiles})
	}
}

// AddSandboxMD gives the session its SANDBOX.md, text (rendered from this
// plan), and puts it after the user's own content in the agent's
// instructions file, so that the agent reads the sandbox's facts as
// Claude does.
func (p *Plan) AddSandboxMD(text string) {
	for i, m := range p.Mounts {
		switch {
		case m.Kind == RoBindData && m.Dest == p.sandboxMD && p.appendPrompt != nil:
			p.Mounts[i].Content = strings.TrimRight(text, "\n") + "\n\n" + p.appendPrompt.Text
		case m.Kind == RoBindData && m.Dest == p.sandboxMD:
			p.Mounts[i].Content = text
		case m.Kind == RoBindData && p.Agent != nil && p.Agent.Instructions != "" && m.Dest == p.Agent.Instructions:
			if m.Content != "" {
				m.Content = strings.TrimRight(m.Content, "\n") + "\n\n"
			}
			p.Mounts[i].Content = m.Content + text
		}
	}
}

// HostAPIURL stands, in the agent's arguments and environment, for the
// proxy's address on the host's network (--network=host), known only once
// the proxy listens on a port of the host's loopback: AtProxy puts it in.
// Unreplaced, it is no address the agent can reach.
const HostAPIURL = "http://127.0.0.1:{{claudebox-proxy-port}}"

// AtProxy is the plan with the agent pointed at the proxy's address url
// on the host's network.
func (p Plan) AtProxy(url string) Plan {
	if p.Agent == nil {
		return p
	}
	put := func(list []string) []string {
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = strings.ReplaceAll(s, HostAPIURL, url)
		}
		return out
	}
	a := *p.Agent
	a.Env = put(a.Env)
	p.Agent = &a
	p.Command = put(p.Command)
	return p
}
