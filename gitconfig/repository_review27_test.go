package gitconfig

import (
	"strings"
	"testing"
)

// TestRepositoryCopy: each shape a credential takes in a repository's
// configuration is dropped, and each variable git needs to work in it is
// kept, URLs without their credentials.
func TestRepositoryCopy(t *testing.T) {
	dropped := []struct{ name, config string }{
		{"a clone's token", "[remote \"origin\"]\n\turl = https://oauth2:SECRET@gitlab.com/a/b.git\n"},
		{"a token as the user", "[remote \"origin\"]\n\turl = https://SECRET@github.com/a/b.git\n"},
		{"a push URL's", "[remote \"origin\"]\n\tpushurl = https://x-access-token:SECRET@github.com/a/b\n"},
		{"a token in the query", "[remote \"origin\"]\n\turl = https://host/a/b.git?private_token=SECRET\n"},
		{"a token in the fragment", "[remote \"origin\"]\n\turl = https://host/a/b.git#SECRET\n"},
		{"a token as the query of a host", "[remote \"origin\"]\n\turl = https://host?t=SECRET\n"},
		{"a password holding a #", "[remote \"origin\"]\n\turl = https://u:SECRET#more@host/a.git\n"},
		{"a password holding a ?", "[remote \"origin\"]\n\turl = https://u:SECRET?more@host/a.git\n"},
		{"a remote helper's query", "[remote \"origin\"]\n\turl = persistent-https://host/a?token=SECRET\n"},
		{"a bucket's query", "[remote \"origin\"]\n\turl = s3://bucket/a?secret=SECRET\n"},
		{"an ssh URL's fragment", "[remote \"origin\"]\n\turl = ssh://git@host/a#SECRET\n"},
		{"a password holding a slash", "[remote \"origin\"]\n\turl = https://u:SEC/RET@host/a.git\n"},
		{"an ssh password", "[remote \"origin\"]\n\turl = ssh://git:SECRET@host/a.git\n"},
		{"an scp-like password", "[remote \"origin\"]\n\turl = git:SECRET@host:a/b.git\n"},
		{"a submodule's", "[submodule \"lib\"]\n\turl = https://SECRET@github.com/a/lib\n"},
		{"a remote named by its URL", "[remote \"https://u:SECRET@host/a\"]\n\tfetch = +refs/heads/*:refs/remotes/x/*\n"},
		{"http.extraHeader", "[http]\n\textraHeader = Authorization: Bearer SECRET\n"},
		{"http.<url>.extraHeader", "[http \"https://host/\"]\n\textraHeader = PRIVATE-TOKEN: SECRET\n"},
		{"http.proxy", "[http]\n\tproxy = http://u:SECRET@proxy:3128\n"},
		{"a remote's proxy", "[remote \"origin\"]\n\tproxy = http://u:SECRET@proxy:3128\n"},
		{"url.insteadOf", "[url \"https://u:SECRET@github.com/\"]\n\tinsteadOf = https://github.com/\n"},
		{"url.pushInsteadOf", "[url \"https://u:SECRET@github.com/\"]\n\tpushInsteadOf = https://github.com/\n"},
		{"lfs.url", "[lfs]\n\turl = https://u:SECRET@lfs.host/a\n"},
		{"a remote's lfs url", "[remote \"origin\"]\n\tlfsurl = https://u:SECRET@lfs.host/a\n"},
		{"a credential helper", "[credential]\n\thelper = !echo password=SECRET\n"},
		{"a credential's user", "[credential \"https://host\"]\n\tusername = SECRET\n"},
		{"an include", "[include]\n\tpath = /home/u/SECRET.gitconfig\n"},
		{"an includeIf", "[includeIf \"gitdir:~/work/\"]\n\tpath = ~/SECRET.gitconfig\n"},
		{"an alias", "[alias]\n\tpub = !curl -H 'Authorization: SECRET' x\n"},
		{"hooksPath", "[core]\n\thooksPath = SECRET\n"},
		{"fsmonitor", "[core]\n\tfsmonitor = SECRET\n"},
		{"sshCommand", "[core]\n\tsshCommand = ssh -i SECRET\n"},
		{"a remote's uploadpack", "[remote \"origin\"]\n\tuploadpack = SECRET\n"},
		{"a submodule's update command", "[submodule \"lib\"]\n\tupdate = !SECRET\n"},
		{"a branch's description", "[branch \"main\"]\n\tdescription = SECRET\n"},
		{"a tool's own", "[github]\n\ttoken = SECRET\n"},
		{"another of pull's", "[pull]\n\ttwohead = SECRET\n"},
		{"a signing program", "[gpg]\n\tprogram = SECRET\n"},
		{"ssh signing's program", "[gpg \"ssh\"]\n\tprogram = SECRET\n"},
		{"a filter", "[filter \"lfs\"]\n\tsmudge = SECRET\n"},
		{"another filter", "[filter \"crypt\"]\n\tsmudge = git-lfs smudge -- %f SECRET\n"},
		{"a file git cannot read", "[remote \"origin\"]\n\turl = \"https://SECRET@host/\n[core]\n\tbare = false\n"},
		{"a line break in a URL", "[remote \"origin\"]\n\turl = \"https://host/a\\nSECRET\"\n"},
	}
	for _, c := range dropped {
		if got := string(RepositoryCopy([]byte(c.config))); strings.Contains(got, "SECRET") {
			t.Errorf("%s crosses:\n%s", c.name, got)
		}
	}
	kept := []struct{ name, config, want string }{
		{"the format", "[core]\n\trepositoryformatversion = 1\n\tbare = false\n\tfilemode = true\n\tlogallrefupdates = true\n", "core.repositoryformatversion=1 core.bare=false core.filemode=true core.logallrefupdates=true"},
		{"folding and links", "[core]\n\tignorecase = true\n\tprecomposeunicode = true\n\tsymlinks = false\n", "core.ignorecase=true core.precomposeunicode=true core.symlinks=false"},
		{"a submodule's work tree", "[core]\n\tworktree = ../../../lib\n", "core.worktree=../../../lib"},
		{"a sparse checkout", "[core]\n\tsparseCheckout = true\n\tsparseCheckoutCone = true\n", "core.sparsecheckout=true core.sparsecheckoutcone=true"},
		{"line endings", "[core]\n\tautocrlf = input\n\teol = lf\n", "core.autocrlf=input core.eol=lf"},
		{"sha256", "[extensions]\n\tobjectFormat = sha256\n", "extensions.objectformat=sha256"},
		{"extensions", "[extensions]\n\tworktreeConfig = true\n\trefStorage = reftable\n\tpartialClone = origin\n\tpreciousObjects\n", "extensions.worktreeconfig=true extensions.refstorage=reftable extensions.partialclone=origin extensions.preciousobjects"},
		{"a remote without its token", "[remote \"origin\"]\n\turl = https://oauth2:SECRET@gitlab.com/a/b.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n", "remote.origin.url=https://gitlab.com/a/b.git remote.origin.fetch=+refs/heads/*:refs/remotes/origin/*"},
		{"a query dropped", "[remote \"m\"]\n\turl = https://host:8443/a.git?private_token=SECRET\n", "remote.m.url=https://host:8443/a.git"},
		{"a push URL without its token", "[remote \"origin\"]\n\tpushurl = https://SECRET@github.com/a/b\n", "remote.origin.pushurl=https://github.com/a/b"},
		{"an ssh URL keeps its login", "[remote \"origin\"]\n\turl = ssh://git:SECRET@host:2222/a.git\n", "remote.origin.url=ssh://git@host:2222/a.git"},
		{"an scp-like address", "[remote \"origin\"]\n\turl = git@github.com:a/b.git\n", "remote.origin.url=git@github.com:a/b.git"},
		{"an IPv6 host", "[remote \"v6\"]\n\turl = https://[::1]:8443/a.git?x=SECRET\n", "remote.v6.url=https://[::1]:8443/a.git"},
		{"a local path", "[remote \"up\"]\n\turl = /home/u/up.git\n", "remote.up.url=/home/u/up.git"},
		{"a file URL", "[remote \"up\"]\n\turl = file:///home/u/up.git\n", "remote.up.url=file:///home/u/up.git"},
		{"a partial clone", "[remote \"origin\"]\n\tpromisor = true\n\tpartialclonefilter = blob:none\n", "remote.origin.promisor=true remote.origin.partialclonefilter=blob:none"},
		{"refspecs and options", "[remote \"origin\"]\n\tpush = refs/heads/main\n\tmirror = false\n\ttagOpt = --no-tags\n\tprune = true\n", "remote.origin.push=refs/heads/main remote.origin.mirror=false remote.origin.tagopt=--no-tags remote.origin.prune=true"},
		{"a branch's upstream", "[branch \"feat/x\"]\n\tremote = origin\n\tmerge = refs/heads/feat/x\n\trebase = true\n\tpushRemote = fork\n", "branch.feat/x.remote=origin branch.feat/x.merge=refs/heads/feat/x branch.feat/x.rebase=true branch.feat/x.pushremote=fork"},
		{"a submodule without its token", "[submodule \"lib\"]\n\turl = https://SECRET@github.com/a/lib\n\tactive = true\n", "submodule.lib.url=https://github.com/a/lib submodule.lib.active=true"},
		{"submodules active by path", "[submodule]\n\tactive = lib/*\n", "submodule.active=lib/*"},
		{"Git LFS's filter", "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n", "filter.lfs.clean=git-lfs clean -- %f filter.lfs.smudge=git-lfs smudge -- %f filter.lfs.process=git-lfs filter-process filter.lfs.required=true"},
		{"pull and push", "[pull]\n\trebase = true\n\tff = only\n[remote]\n\tpushDefault = fork\n", "pull.rebase=true pull.ff=only remote.pushdefault=fork"},
		{"the user", "[user]\n\tname = Alice\n\temail = alice@example.com\n", "user.name=Alice user.email=alice@example.com"},
		{"signing", "[user]\n\tsigningKey = ~/.ssh/id_ed25519.pub\n[commit]\n\tgpgSign = true\n[tag]\n\tgpgSign = true\n[gpg]\n\tformat = ssh\n\tprogram = /tmp/x\n", "user.signingkey=~/.ssh/id_ed25519.pub commit.gpgsign=true tag.gpgsign=true gpg.format=ssh"},
	}
	for _, c := range kept {
		got := RepositoryCopy([]byte(c.config))
		entries, err := Parse(got)
		if err != nil {
			t.Errorf("%s: git cannot read the copy: %v\n%s", c.name, err, got)
			continue
		}
		var list []string
		for _, e := range entries {
			if e.NoValue {
				list = append(list, e.Key)
			} else {
				list = append(list, e.Key+"="+e.Value)
			}
		}
		if s := strings.Join(list, " "); s != c.want {
			t.Errorf("%s: the copy holds\n\t%s\nwant\n\t%s", c.name, s, c.want)
		}
	}
}
