package probe

import (
	"reflect"
	"testing"
)

// An SSH configuration's copy keeps the directives known harmless, whole
// lines, and leaves out the others (a secret in SetEnv, a command), named
// by directive and line; a Match exec block goes whole.
func TestSSHConfigView(t *testing.T) {
	config := "# mine, password hunter3\n" +
		"Host deploy\n  HostName deploy.example.com\n  User=ci\n  SetEnv DEPLOY_KEY=s3cr3t\n  ProxyCommand cloudflared --token x\n" +
		"Match host *.corp exec \"check s3cr3t\"\n  User corp\n" +
		"Match host *.lab\n  Port 2222\n  LocalCommand notify\n" +
		"Host *\n  IdentitiesOnly yes\n  IdentityFile ~/.ssh/id_ed25519\n  User ghp_0123456789abcdefghij\n"
	kept, dropped := sshConfigView([]byte(config))
	want := "" +
		"Host deploy\n  HostName deploy.example.com\n  User=ci\n" +
		"Match host *.lab\n  Port 2222\n" +
		"Host *\n  IdentitiesOnly yes\n  IdentityFile ~/.ssh/id_ed25519\n"
	if string(kept) != want {
		t.Errorf("kept\n%s\nwant\n%s", kept, want)
	}
	wantDropped := []string{"SetEnv (line 5)", "ProxyCommand (line 6)", "Match exec (line 7) and its block", "LocalCommand (line 11)", "User (line 15)"}
	if !reflect.DeepEqual(dropped, wantDropped) {
		t.Errorf("dropped %q, want %q", dropped, wantDropped)
	}
}

// A quoted word is the word ssh reads: a quoted exec is a Match exec, a
// quoted Host a block's header, a quoted SetEnv a SetEnv.
func TestSSHConfigViewQuoted(t *testing.T) {
	config := "Match \"exec\" \"check s3cr3t\"\n  User a\nMatch !\"exec\" \"x\"\n  User b\n\"Host\" gh\n  HostName github.com\n  \"SetEnv\" K=s3cr3t\n"
	kept, dropped := sshConfigView([]byte(config))
	if want := "\"Host\" gh\n  HostName github.com\n"; string(kept) != want {
		t.Errorf("kept\n%s\nwant\n%s", kept, want)
	}
	if want := []string{"Match exec (line 1) and its block", "Match exec (line 3) and its block", "SetEnv (line 7)"}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
}

// The system's SSH configuration is kept as the user's, its Include lines
// too (inside they read only what is shown); another path is none of it.
func TestSystemSSHConfig(t *testing.T) {
	config := "Include /etc/ssh/ssh_config.d/*.conf\nHost bastion\n  ProxyCommand corp-connect --token s3cr3ts3cr3ts3cr3t %h\nHost *\n  SendEnv LANG LC_*\n  SetEnv CORP=s\n"
	for _, path := range []string{"/etc/ssh/ssh_config", "/etc/ssh/ssh_config.d/50-corp.conf"} {
		kept, dropped, ok := SystemSSHConfig(path, []byte(config))
		if want := "Include /etc/ssh/ssh_config.d/*.conf\nHost bastion\nHost *\n  SendEnv LANG LC_*\n"; !ok || string(kept) != want {
			t.Errorf("%s: kept\n%s\nwant\n%s", path, kept, want)
		}
		if want := []string{"ProxyCommand (line 3)", "SetEnv (line 6)"}; !reflect.DeepEqual(dropped, want) {
			t.Errorf("%s: dropped %q, want %q", path, dropped, want)
		}
	}
	if _, _, ok := SystemSSHConfig("/etc/ssh/sshd_config", []byte(config)); ok {
		t.Error("sshd_config taken for the client's configuration")
	}
	if kept, _ := sshConfigView([]byte(config)); string(kept) != "Host bastion\nHost *\n  SendEnv LANG LC_*\n" {
		t.Errorf("the user's copy keeps an Include:\n%s", kept)
	}
}
