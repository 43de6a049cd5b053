package claudesettings

import "sync"

// userKeys are the keys of Claude Code's settings (its schema in 2.1.330)
// that the private copy of your own settings keeps: what chooses models,
// permissions, hooks, plugins, the status line, the display. A key not
// listed stays out, a later release's new key included, until it is known
// harmless. Left out on purpose: the helpers that print a credential or
// refresh a login (apiKeyHelper, proxyAuthHelper, awsCredentialExport,
// awsAuthRefresh, gcpAuthRefresh, otelHeadersHelper), the policy helpers,
// an identity provider's settings (xaaIdp), a gateway login's address
// (forceLoginGatewayUrl), managed MCP servers' definitions, SSH hosts and
// their commands, remote sessions. env is kept, filtered (envKept). Made
// at first use: of the processes a launch starts, only the supervisor
// copies settings, and each ran its package initialisers.
var userKeys = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"$schema": true, "fileSuggestion": true, "respectGitignore": true, "breakReminder": true, "quietHours": true,
		"cleanupPeriodDays": true, "desktopSessionCleanupPeriodDays": true, "syncClaudeAiSkills": true, "syncClaudeAiPlugins": true,
		"skillListingMaxDescChars": true, "skillListingBudgetFraction": true, "env": true,
		"attribution": true, "attributionProject": true, "attributionProjectPolicy": true, "includeCoAuthoredBy": true,
		"includeGitInstructions": true, "permissions": true, "additionalDirectoryConfigRoots": true,
		"model": true, "fallbackModel": true, "availableModels": true, "enforceAvailableModels": true, "availableModelsMatch": true,
		"deniedModels": true, "modelOverrides": true, "modelPicker": true, "modelPricing": true,
		"enableAllProjectMcpServers": true, "enabledMcpjsonServers": true, "disabledMcpjsonServers": true,
		"disableClaudeAiConnectors": true, "skillOverrides": true, "disableBundledSkills": true, "disableDirectMcpSkills": true,
		"allowedMcpServers": true, "deniedMcpServers": true, "hooks": true, "worktree": true, "disableAllHooks": true,
		"disableReplyCheck": true, "disableAgentView": true, "disableRemoteControl": true, "disableWorkflows": true,
		"disableArtifact": true, "enableArtifact": true, "enableWorkflows": true, "workflowSizeGuideline": true,
		"workflowKeywordTriggerEnabled": true, "disableSkillShellExecution": true, "disableWindowsBashCommandSplit": true,
		"defaultShell": true, "bashEditDiffEnabled": true, "bashOutputMaxChars": true, "taskOutputMaxChars": true,
		"respondToBashCommands": true, "allowManagedHooksOnly": true, "allowedHttpHookUrls": true, "httpHookAllowedEnvVars": true,
		"allowManagedPermissionRulesOnly": true, "allowManagedMcpServersOnly": true, "desktopMcpServersListScope": true,
		"allowAllClaudeAiMcps": true, "allowClaudeInChromeWithManagedMcp": true, "strictPluginOnlyCustomization": true,
		"statusLine": true, "prUrlTemplate": true, "footerLinksRegexes": true, "subagentStatusLine": true,
		"enabledPlugins": true, "prependPlugins": true, "appendPlugins": true, "extraKnownMarketplaces": true,
		"additionalMarketplaces": true, "strictKnownMarketplaces": true, "allowedMarketplaces": true, "blockedMarketplaces": true,
		"disableCommandPluginSources": true, "disableSideloadFlags": true, "pluginSuggestionMarketplaces": true,
		"forceLoginMethod": true, "forceLoginOrgUUID": true, "parentSettingsBehavior": true, "managedSourcesBehavior": true,
		"allowNestedModelAccessUnderForceLogin": true, "allowedProviders": true, "forceRemoteSettingsRefresh": true,
		"outputStyle": true, "viewMode": true, "language": true, "skipWebFetchPreflight": true, "sandbox": true,
		"feedbackSurveyRate": true, "feedbackDrafts": true, "spinnerTipsEnabled": true, "clawdFileProgressEnabled": true,
		"spinnerVerbs": true, "spinnerTipsOverride": true, "syntaxHighlightingDisabled": true, "maxProseWidth": true,
		"spellcheck": true, "terminalTitleFromRename": true, "promptCacheTtl": true, "subagentPromptCacheTtl": true,
		"alwaysThinkingEnabled": true, "effortLevel": true, "maxEffortLevel": true, "modelSettings": true, "ultracode": true,
		"autoCompactWindow": true, "advisorModel": true, "fastMode": true, "fastModePerSessionOptIn": true,
		"promptSuggestionEnabled": true, "emojiCompletionEnabled": true, "awaySummaryEnabled": true,
		"responseComparisonEnabled": true, "showClearContextOnPlanAccept": true, "askUserQuestionTimeout": true,
		"dialogExpiry": true, "agent": true, "modelProposedGoals": true, "companyAnnouncements": true, "pluginConfigs": true,
		"autoUpdatesChannel": true, "minimumVersion": true, "requiredMinimumVersion": true, "requiredMaximumVersion": true,
		"plansDirectory": true, "tui": true, "voice": true, "channelsEnabled": true, "allowedChannelPlugins": true,
		"prefersReducedMotion": true, "timeFormat": true, "timeZone": true, "doneMeansMerged": true,
		"totalTokensReminder": true, "totalTokensReminderBudget": true, "totalTokensReminderAfterUserTurn": true,
		"autoMemoryEnabled": true, "autoMemoryDirectory": true, "autoDreamEnabled": true, "showThinkingSummaries": true,
		"skipDangerousModePermissionPrompt": true, "skipWorkflowUsageWarning": true, "disableAutoMode": true,
		"claudeMd": true, "claudeMdExcludes": true, "pluginTrustMessage": true, "theme": true, "editorMode": true,
		"keybindingFlavor": true, "vimInsertModeRemaps": true, "verbose": true, "preferredNotifChannel": true,
		"autoCompactEnabled": true, "precomputeCompactionEnabled": true, "precomputeArmTokens": true,
		"autoCompactRaisedForLoad": true, "autoCompactOfferAnswer": true, "idleCompaction": true, "switchModelsOnFlag": true,
		"autoContinueAtUsageLimit": true, "autoScrollEnabled": true, "wheelScrollAccelerationEnabled": true,
		"fileCheckpointingEnabled": true, "showTurnDuration": true, "showMessageTimestamps": true,
		"terminalProgressBarEnabled": true, "todoFeatureEnabled": true, "teammateMode": true,
	}
})
