package mount

import "path/filepath"

// GPGAgent is what --with-gpg forwards: gpg-agent's restricted socket,
// the one gpg-agent makes for a remote gpg (S.gpg-agent.extra), which
// signs and decrypts but never exports a secret key; and the host's public
// keyring, which gpg needs to find the key it asks the agent to use.
type GPGAgent struct {
	// Socket is the agent's extra socket on the host, as the probe finds
	// it; in a session's plan, the socket of claudebox's filter of it
	// (package gpgagent), which passes on only signing.
	Socket string
	// Keyring are the host's public keyring and trust database files that
	// exist (pubring.kbx, pubring.gpg, trustdb.gpg); Settings, gpg.conf and
	// common.conf, each a copy of its options known harmless (the default
	// key, the algorithms), and SettingsLeftOut names the rest, by option
	// and line.
	Keyring         []Copy
	Settings        []GPGSettings
	SettingsLeftOut []string
}

// GPGSettings is a private copy of one of gpg's settings files: its name
// in ~/.gnupg and what it holds.
type GPGSettings struct {
	Name, Content string
}

// GPGDir is where gpg looks inside: its default home, where it also
// looks for the agent's socket when /run/user has none.
const GPGDir = ".gnupg"

// addGPG makes ~/.gnupg private, with copies of the public keyring (gpg
// takes locks beside it and may update the trust database: the copies
// take that, the host's files stay as they are), copies of the settings
// and the agent's extra socket where gpg connects. private-keys-v1.d
// never enters.
func (p *Plan) addGPG(g *GPGAgent) {
	dir := filepath.Join(p.Home, GPGDir)
	p.Mounts = append(p.Mounts, Mount{Kind: Tmpfs, Dest: dir, ownerOnly: true, Role: Private, Why: "~/.gnupg, private (--with-gpg), mode 0700 as gpg wants it: its private keys stay on the host"})
	for _, c := range g.Keyring {
		p.Mounts = append(p.Mounts, Mount{Kind: BindData, Src: c.Src, Dest: filepath.Join(dir, filepath.Base(c.Path)), Checked: c.ID, Role: HostFiles, Why: "your public keyring (--with-gpg), a private copy"})
	}
	for _, f := range g.Settings {
		p.Mounts = append(p.Mounts, Mount{Kind: RoBindData, Dest: filepath.Join(dir, f.Name), Content: f.Content, Role: HostFiles, Why: "your gpg settings (--with-gpg), a private copy of the options known harmless"})
	}
	p.CredentialsLeftOut = append(p.CredentialsLeftOut, g.SettingsLeftOut...)
	p.add(Agent, Bind, g.Socket, filepath.Join(dir, "S.gpg-agent"), "claudebox's filter of your gpg-agent's restricted socket (--with-gpg): keys sign, never decrypt, never readable or exported")
}
