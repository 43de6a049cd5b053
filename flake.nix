{
  description = "claudebox: run Claude Code in a bubblewrap sandbox with per-project history";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs =
    { self, nixpkgs }:
    let
      # The Linux systems Claude Code supports.
      systems = [
        "x86_64-linux"
        "aarch64-linux"
      ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
      version = self.shortRev or self.dirtyShortRev or "dev";

      claudebox =
        pkgs:
        pkgs.buildGoModule {
          pname = "claudebox";
          inherit version;
          src = ./.;
          # The NAR hash of `go mod vendor`; flake_test.go recomputes it from
          # go.sum and fails with the new hash when they differ.
          vendorHash = "sha256-5Nl3RdXzYSx2OM3r9aK21feIO/Ax7bWPEeZ31Hp1Rjk=";
          # A static binary: the supervisor, the relay and the watcher each
          # start without the dynamic loader (about 1.5 ms of CPU apiece).
          env.CGO_ENABLED = 0;
          ldflags = [
            "-s"
            "-w"
            "-X main.version=${version}"
          ];
          nativeBuildInputs = [
            pkgs.installShellFiles
            pkgs.makeWrapper
          ];
          # The real-sandbox tests need user namespaces and the flake tests
          # need nix, which the build sandbox lacks; -short skips them.
          checkFlags = [ "-short" ];
          nativeCheckInputs = [ pkgs.git ];
          postInstall = ''
            installShellCompletion --cmd claudebox \
              --bash <($out/bin/claudebox --completion bash) \
              --zsh <($out/bin/claudebox --completion zsh) \
              --fish <($out/bin/claudebox --completion fish)
            wrapProgram $out/bin/claudebox \
              --prefix PATH : ${
                pkgs.lib.makeBinPath [
                  pkgs.bubblewrap
                  pkgs.git
                ]
              }
          '';
          meta = {
            description = "Run Claude Code in a bubblewrap sandbox with per-project history";
            mainProgram = "claudebox";
            platforms = systems;
          };
        };
    in
    {
      packages = forAllSystems (pkgs: {
        default = claudebox pkgs;
        claudebox = claudebox pkgs;
      });

      overlays.default = final: prev: { claudebox = claudebox final; };

      apps = forAllSystems (pkgs: {
        default = {
          type = "app";
          program = "${self.packages.${pkgs.stdenv.hostPlatform.system}.default}/bin/claudebox";
        };
      });

      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          packages = [
            pkgs.go
            pkgs.gopls
            pkgs.bubblewrap
            pkgs.git
            pkgs.tmux
          ];
        };
      });

      # Building the package runs `go test -short ./...` in the build sandbox.
      checks = forAllSystems (pkgs: {
        default = self.packages.${pkgs.stdenv.hostPlatform.system}.default;
      });

      formatter = forAllSystems (pkgs: pkgs.nixfmt-rfc-style);
    };
}
