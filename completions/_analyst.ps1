
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'analyst' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'analyst'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'analyst' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('chat', 'chat', [CompletionResultType]::ParameterValue, 'Send a message to the agent and stream the answer')
            [CompletionResult]::new('state', 'state', [CompletionResultType]::ParameterValue, 'Read a thread''s current state')
            [CompletionResult]::new('abort', 'abort', [CompletionResultType]::ParameterValue, 'Stop a running stream')
            [CompletionResult]::new('scim', 'scim', [CompletionResultType]::ParameterValue, 'SCIM users and groups: find, read, patch (e.g. deactivate), change group members')
            [CompletionResult]::new('extract-final', 'extract-final', [CompletionResultType]::ParameterValue, 'Print the final answer from saved NDJSON')
            [CompletionResult]::new('sql', 'sql', [CompletionResultType]::ParameterValue, 'Run SQL on the data query API and stream every row (the full results behind an answer)')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the agent to AI assistants over the Model Context Protocol (stdio)')
            [CompletionResult]::new('eval', 'eval', [CompletionResultType]::ParameterValue, 'Run suites of questions with expectations; report for people and CI (JUnit)')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Run the built-in local emulator of the service (chat, abort, SCIM, data API)')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Write and read the config file without an editor')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check settings, reachability and credentials, each with its fix')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'analyst;chat' {
            [CompletionResult]::new('--chat-id', '--chat-id', [CompletionResultType]::ParameterName, 'The thread (chat) id')
            [CompletionResult]::new('--message-id', '--message-id', [CompletionResultType]::ParameterName, 'Message id (default: <unix-ms>-message)')
            [CompletionResult]::new('--branch', '--branch', [CompletionResultType]::ParameterName, 'Branch to work on (activeBranchName)')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Attach an image (repeat)')
            [CompletionResult]::new('--save', '--save', [CompletionResultType]::ParameterName, 'Also write the raw lines to FILE (exactly what -o ndjson prints)')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'How often to resume a dropped stream')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Wire variant the --demo emulator speaks (see `analyst serve --dialect`)')
            [CompletionResult]::new('--today', '--today', [CompletionResultType]::ParameterName, 'The date the --demo emulator resolves relative periods against (see `analyst serve --today`)')
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'A whole request body to start from (inline JSON, @FILE, FILE or -); flags override its fields')
            [CompletionResult]::new('--replay', '--replay', [CompletionResultType]::ParameterName, 'Render a saved stream (FILE or -) without contacting the service')
            [CompletionResult]::new('--rows', '--rows', [CompletionResultType]::ParameterName, 'Rows of each result table in text (0 = all that arrived)')
            [CompletionResult]::new('--chart', '--chart', [CompletionResultType]::ParameterName, 'Write each charted result to FILE: .svg, .html or .vl.json (several: FILE-1, FILE-2...)')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]')
            [CompletionResult]::new('--account', '--account', [CompletionResultType]::ParameterName, 'Account name [env: ANALYST_ACCOUNT]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Agent id [env: ANALYST_AGENT]')
            [CompletionResult]::new('--api-key-file', '--api-key-file', [CompletionResultType]::ParameterName, 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself')
            [CompletionResult]::new('--external-id', '--external-id', [CompletionResultType]::ParameterName, 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]')
            [CompletionResult]::new('--internal-id', '--internal-id', [CompletionResultType]::ParameterName, 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]')
            [CompletionResult]::new('--email', '--email', [CompletionResultType]::ParameterName, 'The user''s email')
            [CompletionResult]::new('--attr', '--attr', [CompletionResultType]::ParameterName, 'User attribute for row-level security (repeat)')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Group (repeat)')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Role (repeat)')
            [CompletionResult]::new('--security-context', '--security-context', [CompletionResultType]::ParameterName, 'Security context object: inline JSON, @FILE, FILE or - for stdin')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)')
            [CompletionResult]::new('--user-ttl', '--user-ttl', [CompletionResultType]::ParameterName, 'Lifetime of an ephemeral user, e.g. 2h or 7d')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: text on a terminal, else ndjson)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: text on a terminal, else ndjson)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The last thread used with this profile')
            [CompletionResult]::new('--continue', '--continue', [CompletionResultType]::ParameterName, 'The last thread used with this profile')
            [CompletionResult]::new('--default-branch', '--default-branch', [CompletionResultType]::ParameterName, 'Mark the branch as the default one (isDefaultBranch)')
            [CompletionResult]::new('--fallback', '--fallback', [CompletionResultType]::ParameterName, 'With no final frame in the stream, take the last complete assistant message (with a warning)')
            [CompletionResult]::new('--show-thinking', '--show-thinking', [CompletionResultType]::ParameterName, 'Show the agent''s reasoning (text format)')
            [CompletionResult]::new('--no-abort', '--no-abort', [CompletionResultType]::ParameterName, 'On Ctrl-C, do not send an abort for the thread')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Talk to the built-in emulator, started in-process on a free loopback port')
            [CompletionResult]::new('--no-chart', '--no-chart', [CompletionResultType]::ParameterName, 'Do not draw charts under the tables in text')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'A prompt: each line a message in the same thread (terminal only)')
            [CompletionResult]::new('--interactive', '--interactive', [CompletionResultType]::ParameterName, 'A prompt: each line a message in the same thread (terminal only)')
            [CompletionResult]::new('--persist-user', '--persist-user', [CompletionResultType]::ParameterName, 'Keep the external user (isEphemeral: false)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;state' {
            [CompletionResult]::new('--chat-id', '--chat-id', [CompletionResultType]::ParameterName, 'The thread (chat) id')
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'A whole request body to start from (inline JSON, @FILE, FILE or -); flags override its fields')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]')
            [CompletionResult]::new('--account', '--account', [CompletionResultType]::ParameterName, 'Account name [env: ANALYST_ACCOUNT]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Agent id [env: ANALYST_AGENT]')
            [CompletionResult]::new('--api-key-file', '--api-key-file', [CompletionResultType]::ParameterName, 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself')
            [CompletionResult]::new('--external-id', '--external-id', [CompletionResultType]::ParameterName, 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]')
            [CompletionResult]::new('--internal-id', '--internal-id', [CompletionResultType]::ParameterName, 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]')
            [CompletionResult]::new('--email', '--email', [CompletionResultType]::ParameterName, 'The user''s email')
            [CompletionResult]::new('--attr', '--attr', [CompletionResultType]::ParameterName, 'User attribute for row-level security (repeat)')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Group (repeat)')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Role (repeat)')
            [CompletionResult]::new('--security-context', '--security-context', [CompletionResultType]::ParameterName, 'Security context object: inline JSON, @FILE, FILE or - for stdin')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)')
            [CompletionResult]::new('--user-ttl', '--user-ttl', [CompletionResultType]::ParameterName, 'Lifetime of an ephemeral user, e.g. 2h or 7d')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else ndjson)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else ndjson)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The last thread used with this profile')
            [CompletionResult]::new('--continue', '--continue', [CompletionResultType]::ParameterName, 'The last thread used with this profile')
            [CompletionResult]::new('--persist-user', '--persist-user', [CompletionResultType]::ParameterName, 'Keep the external user (isEphemeral: false)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;abort' {
            [CompletionResult]::new('--chat-id', '--chat-id', [CompletionResultType]::ParameterName, 'The thread (chat) id')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]')
            [CompletionResult]::new('--account', '--account', [CompletionResultType]::ParameterName, 'Account name [env: ANALYST_ACCOUNT]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Agent id [env: ANALYST_AGENT]')
            [CompletionResult]::new('--api-key-file', '--api-key-file', [CompletionResultType]::ParameterName, 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself')
            [CompletionResult]::new('--external-id', '--external-id', [CompletionResultType]::ParameterName, 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]')
            [CompletionResult]::new('--internal-id', '--internal-id', [CompletionResultType]::ParameterName, 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]')
            [CompletionResult]::new('--email', '--email', [CompletionResultType]::ParameterName, 'The user''s email')
            [CompletionResult]::new('--attr', '--attr', [CompletionResultType]::ParameterName, 'User attribute for row-level security (repeat)')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Group (repeat)')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Role (repeat)')
            [CompletionResult]::new('--security-context', '--security-context', [CompletionResultType]::ParameterName, 'Security context object: inline JSON, @FILE, FILE or - for stdin')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)')
            [CompletionResult]::new('--user-ttl', '--user-ttl', [CompletionResultType]::ParameterName, 'Lifetime of an ephemeral user, e.g. 2h or 7d')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Format of --dry-run''s request (default: text)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Format of --dry-run''s request (default: text)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The last thread used with this profile')
            [CompletionResult]::new('--continue', '--continue', [CompletionResultType]::ParameterName, 'The last thread used with this profile')
            [CompletionResult]::new('--persist-user', '--persist-user', [CompletionResultType]::ParameterName, 'Keep the external user (isEphemeral: false)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;scim' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('patch', 'patch', [CompletionResultType]::ParameterValue, 'Patch SCIM users, e.g. deactivate them')
            [CompletionResult]::new('users', 'users', [CompletionResultType]::ParameterValue, 'Find SCIM users (a filter, every page) and read them')
            [CompletionResult]::new('groups', 'groups', [CompletionResultType]::ParameterValue, 'Read SCIM groups and change their members')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'analyst;scim;patch' {
            [CompletionResult]::new('--ids-from', '--ids-from', [CompletionResultType]::ParameterName, 'Read ids from FILE (- for stdin), one per line; # comments and blank lines are skipped')
            [CompletionResult]::new('--user-name', '--user-name', [CompletionResultType]::ParameterName, 'Find the user by userName (repeat)')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Patch every user this SCIM filter matches (every page)')
            [CompletionResult]::new('--replace', '--replace', [CompletionResultType]::ParameterName, 'replace PATH with VALUE (repeat)')
            [CompletionResult]::new('--add', '--add', [CompletionResultType]::ParameterName, 'add VALUE at PATH (repeat)')
            [CompletionResult]::new('--remove', '--remove', [CompletionResultType]::ParameterName, 'remove PATH (repeat)')
            [CompletionResult]::new('--body', '--body', [CompletionResultType]::ParameterName, 'A whole PatchOp document (inline JSON, @FILE, FILE or -)')
            [CompletionResult]::new('--if-match', '--if-match', [CompletionResultType]::ParameterName, 'Send If-Match: ETAG (the server answers 412 when the user changed)')
            [CompletionResult]::new('--attributes', '--attributes', [CompletionResultType]::ParameterName, 'Ask for these attributes of the patched user (comma-separated)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Requests in flight at once')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Requests in flight at once')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries of 429 and 503 per user (3: at most 4 tries)')
            [CompletionResult]::new('--scim-url', '--scim-url', [CompletionResultType]::ParameterName, 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]')
            [CompletionResult]::new('--scim-token-file', '--scim-token-file', [CompletionResultType]::ParameterName, 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'With --filter: patch without asking (needed when there is no terminal to ask on)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'With --filter: patch without asking (needed when there is no terminal to ask on)')
            [CompletionResult]::new('--deactivate', '--deactivate', [CompletionResultType]::ParameterName, 'replace active false')
            [CompletionResult]::new('--activate', '--activate', [CompletionResultType]::ParameterName, 'replace active true')
            [CompletionResult]::new('--pathless', '--pathless', [CompletionResultType]::ParameterName, 'Send replace operations as one path-less value object')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;scim;users' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List users: a filter, a page or every page')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read users by id or userName')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'analyst;scim;users;list' {
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'A SCIM filter, e.g. ''userName ew "@old.example.com" and active eq true''')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Page size to ask for (with --all, default 1000)')
            [CompletionResult]::new('--start-index', '--start-index', [CompletionResultType]::ParameterName, '1-based index of the first result')
            [CompletionResult]::new('--attributes', '--attributes', [CompletionResultType]::ParameterName, 'Ask for these attributes only (comma-separated)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else ndjson)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else ndjson)')
            [CompletionResult]::new('--scim-url', '--scim-url', [CompletionResultType]::ParameterName, 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]')
            [CompletionResult]::new('--scim-token-file', '--scim-token-file', [CompletionResultType]::ParameterName, 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries of 429 and 503 per request (3: at most 4 tries)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Read every page (the next startIndex follows the itemsPerPage answered)')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print only the ids, one a line (for `scim patch --ids-from -`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;scim;users;get' {
            [CompletionResult]::new('--user-name', '--user-name', [CompletionResultType]::ParameterName, 'Find the user by userName (repeat)')
            [CompletionResult]::new('--attributes', '--attributes', [CompletionResultType]::ParameterName, 'Ask for these attributes only (comma-separated)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--scim-url', '--scim-url', [CompletionResultType]::ParameterName, 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]')
            [CompletionResult]::new('--scim-token-file', '--scim-token-file', [CompletionResultType]::ParameterName, 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries of 429 and 503 per request (3: at most 4 tries)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;scim;users;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List users: a filter, a page or every page')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read users by id or userName')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'analyst;scim;users;help;list' {
            break
        }
        'analyst;scim;users;help;get' {
            break
        }
        'analyst;scim;users;help;help' {
            break
        }
        'analyst;scim;groups' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List groups: a filter, a page or every page')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read a group and its members')
            [CompletionResult]::new('add-member', 'add-member', [CompletionResultType]::ParameterValue, 'Put users in a group')
            [CompletionResult]::new('remove-member', 'remove-member', [CompletionResultType]::ParameterValue, 'Take users out of a group')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'analyst;scim;groups;list' {
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'A SCIM filter, e.g. ''userName ew "@old.example.com" and active eq true''')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Page size to ask for (with --all, default 1000)')
            [CompletionResult]::new('--start-index', '--start-index', [CompletionResultType]::ParameterName, '1-based index of the first result')
            [CompletionResult]::new('--attributes', '--attributes', [CompletionResultType]::ParameterName, 'Ask for these attributes only (comma-separated)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else ndjson)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else ndjson)')
            [CompletionResult]::new('--scim-url', '--scim-url', [CompletionResultType]::ParameterName, 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]')
            [CompletionResult]::new('--scim-token-file', '--scim-token-file', [CompletionResultType]::ParameterName, 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries of 429 and 503 per request (3: at most 4 tries)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Read every page (the next startIndex follows the itemsPerPage answered)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;scim;groups;get' {
            [CompletionResult]::new('--group-name', '--group-name', [CompletionResultType]::ParameterName, 'Find the group by displayName')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--scim-url', '--scim-url', [CompletionResultType]::ParameterName, 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]')
            [CompletionResult]::new('--scim-token-file', '--scim-token-file', [CompletionResultType]::ParameterName, 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries of 429 and 503 per request (3: at most 4 tries)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;scim;groups;add-member' {
            [CompletionResult]::new('--group-name', '--group-name', [CompletionResultType]::ParameterName, 'Find the group by displayName')
            [CompletionResult]::new('--user-name', '--user-name', [CompletionResultType]::ParameterName, 'Find the user by userName (repeat)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'userName lookups in flight at once')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'userName lookups in flight at once')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--scim-url', '--scim-url', [CompletionResultType]::ParameterName, 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]')
            [CompletionResult]::new('--scim-token-file', '--scim-token-file', [CompletionResultType]::ParameterName, 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries of 429 and 503 per request (3: at most 4 tries)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;scim;groups;remove-member' {
            [CompletionResult]::new('--group-name', '--group-name', [CompletionResultType]::ParameterName, 'Find the group by displayName')
            [CompletionResult]::new('--user-name', '--user-name', [CompletionResultType]::ParameterName, 'Find the user by userName (repeat)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'userName lookups in flight at once')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'userName lookups in flight at once')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--scim-url', '--scim-url', [CompletionResultType]::ParameterName, 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]')
            [CompletionResult]::new('--scim-token-file', '--scim-token-file', [CompletionResultType]::ParameterName, 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'Retries of 429 and 503 per request (3: at most 4 tries)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;scim;groups;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List groups: a filter, a page or every page')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read a group and its members')
            [CompletionResult]::new('add-member', 'add-member', [CompletionResultType]::ParameterValue, 'Put users in a group')
            [CompletionResult]::new('remove-member', 'remove-member', [CompletionResultType]::ParameterValue, 'Take users out of a group')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'analyst;scim;groups;help;list' {
            break
        }
        'analyst;scim;groups;help;get' {
            break
        }
        'analyst;scim;groups;help;add-member' {
            break
        }
        'analyst;scim;groups;help;remove-member' {
            break
        }
        'analyst;scim;groups;help;help' {
            break
        }
        'analyst;scim;help' {
            [CompletionResult]::new('patch', 'patch', [CompletionResultType]::ParameterValue, 'Patch SCIM users, e.g. deactivate them')
            [CompletionResult]::new('users', 'users', [CompletionResultType]::ParameterValue, 'Find SCIM users (a filter, every page) and read them')
            [CompletionResult]::new('groups', 'groups', [CompletionResultType]::ParameterValue, 'Read SCIM groups and change their members')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'analyst;scim;help;patch' {
            break
        }
        'analyst;scim;help;users' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List users: a filter, a page or every page')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read users by id or userName')
            break
        }
        'analyst;scim;help;users;list' {
            break
        }
        'analyst;scim;help;users;get' {
            break
        }
        'analyst;scim;help;groups' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List groups: a filter, a page or every page')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read a group and its members')
            [CompletionResult]::new('add-member', 'add-member', [CompletionResultType]::ParameterValue, 'Put users in a group')
            [CompletionResult]::new('remove-member', 'remove-member', [CompletionResultType]::ParameterValue, 'Take users out of a group')
            break
        }
        'analyst;scim;help;groups;list' {
            break
        }
        'analyst;scim;help;groups;get' {
            break
        }
        'analyst;scim;help;groups;add-member' {
            break
        }
        'analyst;scim;help;groups;remove-member' {
            break
        }
        'analyst;scim;help;help' {
            break
        }
        'analyst;extract-final' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: text)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: text)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--fallback', '--fallback', [CompletionResultType]::ParameterName, 'Accept the last complete assistant message with content when there is no final frame')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Stop at the first malformed line instead of skipping it')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;sql' {
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'Take the SQL from a saved chat stream (FILE, or - for stdin)')
            [CompletionResult]::new('--chat-id', '--chat-id', [CompletionResultType]::ParameterName, 'The thread (chat) id')
            [CompletionResult]::new('--pick', '--pick', [CompletionResultType]::ParameterName, 'Which SQL of the answer to run, from 1 (default: the last)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Stop after N rows and cancel the query on the service')
            [CompletionResult]::new('--cache', '--cache', [CompletionResultType]::ParameterName, 'Cache policy of the query')
            [CompletionResult]::new('--rows', '--rows', [CompletionResultType]::ParameterName, 'Rows shown in a table (then a count); 0 = all')
            [CompletionResult]::new('--today', '--today', [CompletionResultType]::ParameterName, 'The date the --demo emulator resolves relative periods against, and where its sample data end, e.g. 2025-06-15 (see `analyst serve --today`)')
            [CompletionResult]::new('--data-url', '--data-url', [CompletionResultType]::ParameterName, 'Data query API root, e.g. https://x.example.com/cubejs-api (a bare origin gets /cubejs-api appended) [env: ANALYST_DATA_URL]')
            [CompletionResult]::new('--data-token-file', '--data-token-file', [CompletionResultType]::ParameterName, 'Read the data API token (a JWT) from FILE (- for stdin), or set ANALYST_DATA_TOKEN to the token itself; with token auth the chat token is the default')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]')
            [CompletionResult]::new('--account', '--account', [CompletionResultType]::ParameterName, 'Account name [env: ANALYST_ACCOUNT]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Agent id [env: ANALYST_AGENT]')
            [CompletionResult]::new('--api-key-file', '--api-key-file', [CompletionResultType]::ParameterName, 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself')
            [CompletionResult]::new('--external-id', '--external-id', [CompletionResultType]::ParameterName, 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]')
            [CompletionResult]::new('--internal-id', '--internal-id', [CompletionResultType]::ParameterName, 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]')
            [CompletionResult]::new('--email', '--email', [CompletionResultType]::ParameterName, 'The user''s email')
            [CompletionResult]::new('--attr', '--attr', [CompletionResultType]::ParameterName, 'User attribute for row-level security (repeat)')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Group (repeat)')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Role (repeat)')
            [CompletionResult]::new('--security-context', '--security-context', [CompletionResultType]::ParameterName, 'Security context object: inline JSON, @FILE, FILE or - for stdin')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)')
            [CompletionResult]::new('--user-ttl', '--user-ttl', [CompletionResultType]::ParameterName, 'Lifetime of an ephemeral user, e.g. 2h or 7d')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else csv)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else csv)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'The last thread used with this profile')
            [CompletionResult]::new('--continue', '--continue', [CompletionResultType]::ParameterName, 'The last thread used with this profile')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Run every SQL of the answer, one after another')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the SQL of the answer (index, title, rows shown, totalRows) and send nothing')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'csv and tsv: no header row')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Run against the built-in emulator, started in-process (--from a --demo run works)')
            [CompletionResult]::new('--persist-user', '--persist-user', [CompletionResultType]::ParameterName, 'Keep the external user (isEphemeral: false)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;mcp' {
            [CompletionResult]::new('--today', '--today', [CompletionResultType]::ParameterName, 'The date the --demo emulator resolves relative periods against, and where its sample data end, e.g. 2025-06-15 (see `analyst serve --today`)')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Wire variant the --demo emulator speaks (see `analyst serve --dialect`)')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'How often `ask` resumes a dropped stream')
            [CompletionResult]::new('--data-url', '--data-url', [CompletionResultType]::ParameterName, 'Data query API root, e.g. https://x.example.com/cubejs-api (a bare origin gets /cubejs-api appended) [env: ANALYST_DATA_URL]')
            [CompletionResult]::new('--data-token-file', '--data-token-file', [CompletionResultType]::ParameterName, 'Read the data API token (a JWT) from FILE (- for stdin), or set ANALYST_DATA_TOKEN to the token itself; with token auth the chat token is the default')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]')
            [CompletionResult]::new('--account', '--account', [CompletionResultType]::ParameterName, 'Account name [env: ANALYST_ACCOUNT]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Agent id [env: ANALYST_AGENT]')
            [CompletionResult]::new('--api-key-file', '--api-key-file', [CompletionResultType]::ParameterName, 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself')
            [CompletionResult]::new('--external-id', '--external-id', [CompletionResultType]::ParameterName, 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]')
            [CompletionResult]::new('--internal-id', '--internal-id', [CompletionResultType]::ParameterName, 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]')
            [CompletionResult]::new('--email', '--email', [CompletionResultType]::ParameterName, 'The user''s email')
            [CompletionResult]::new('--attr', '--attr', [CompletionResultType]::ParameterName, 'User attribute for row-level security (repeat)')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Group (repeat)')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Role (repeat)')
            [CompletionResult]::new('--security-context', '--security-context', [CompletionResultType]::ParameterName, 'Security context object: inline JSON, @FILE, FILE or - for stdin')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)')
            [CompletionResult]::new('--user-ttl', '--user-ttl', [CompletionResultType]::ParameterName, 'Lifetime of an ephemeral user, e.g. 2h or 7d')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Serve the built-in emulator, started in-process on a free loopback port')
            [CompletionResult]::new('--fallback', '--fallback', [CompletionResultType]::ParameterName, 'With no final frame in the stream, take the last complete assistant message')
            [CompletionResult]::new('--persist-user', '--persist-user', [CompletionResultType]::ParameterName, 'Keep the external user (isEphemeral: false)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;eval' {
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Run only cases whose name this regex matches (anywhere in it)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Cases run at once')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Cases run at once')
            [CompletionResult]::new('--repeat', '--repeat', [CompletionResultType]::ParameterName, 'Run each case N times (reported as NAME#1, NAME#2, ...)')
            [CompletionResult]::new('--junit', '--junit', [CompletionResultType]::ParameterName, 'Also write JUnit XML to FILE')
            [CompletionResult]::new('--save-dir', '--save-dir', [CompletionResultType]::ParameterName, 'Keep each case''s raw stream as DIR/NAME.ndjson (DIR is created when missing)')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Compare with an earlier `-o json` result and report regressions')
            [CompletionResult]::new('--retries', '--retries', [CompletionResultType]::ParameterName, 'How often to resume a dropped stream, per turn')
            [CompletionResult]::new('--today', '--today', [CompletionResultType]::ParameterName, 'The date the --demo emulator resolves relative periods against, and where its sample data end, default 2026-06-30 for eval, so that suites of exact numbers stay true; e.g. 2025-06-15 (see `analyst serve --today`)')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]')
            [CompletionResult]::new('--account', '--account', [CompletionResultType]::ParameterName, 'Account name [env: ANALYST_ACCOUNT]')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Agent id [env: ANALYST_AGENT]')
            [CompletionResult]::new('--api-key-file', '--api-key-file', [CompletionResultType]::ParameterName, 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself')
            [CompletionResult]::new('--token-file', '--token-file', [CompletionResultType]::ParameterName, 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself')
            [CompletionResult]::new('--external-id', '--external-id', [CompletionResultType]::ParameterName, 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]')
            [CompletionResult]::new('--internal-id', '--internal-id', [CompletionResultType]::ParameterName, 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]')
            [CompletionResult]::new('--email', '--email', [CompletionResultType]::ParameterName, 'The user''s email')
            [CompletionResult]::new('--attr', '--attr', [CompletionResultType]::ParameterName, 'User attribute for row-level security (repeat)')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Group (repeat)')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Role (repeat)')
            [CompletionResult]::new('--security-context', '--security-context', [CompletionResultType]::ParameterName, 'Security context object: inline JSON, @FILE, FILE or - for stdin')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)')
            [CompletionResult]::new('--user-ttl', '--user-ttl', [CompletionResultType]::ParameterName, 'Lifetime of an ephemeral user, e.g. 2h or 7d')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: table on a terminal, else json)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'Longest wait to connect, e.g. 10s')
            [CompletionResult]::new('--idle-timeout', '--idle-timeout', [CompletionResultType]::ParameterName, 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('--fallback', '--fallback', [CompletionResultType]::ParameterName, 'With no final frame in a stream, take the last complete assistant message')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Talk to the built-in emulator, started in-process on a free loopback port')
            [CompletionResult]::new('--persist-user', '--persist-user', [CompletionResultType]::ParameterName, 'Keep the external user (isEphemeral: false)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the request that would be sent (secrets as ***) and exit without sending it')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address to listen on')
            [CompletionResult]::new('--account', '--account', [CompletionResultType]::ParameterName, 'Account name in the chat URL')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Agent id in the chat URL')
            [CompletionResult]::new('--api-key-file', '--api-key-file', [CompletionResultType]::ParameterName, 'Read the API key clients must send from FILE (generated when absent)')
            [CompletionResult]::new('--scim-token-file', '--scim-token-file', [CompletionResultType]::ParameterName, 'Read the SCIM token clients must send from FILE (generated when absent)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Semantic model (YAML) instead of the built-in one')
            [CompletionResult]::new('--data', '--data', [CompletionResultType]::ParameterName, 'Your data instead of the built-in sample: one SQLite file, or CSV files (repeat: one table per file, named after it; a header row required); a model is inferred without --model')
            [CompletionResult]::new('--write-sample', '--write-sample', [CompletionResultType]::ParameterName, 'Write the built-in sample shop, as the demo sees it on --today (default: the real date), to a new SQLite file and exit')
            [CompletionResult]::new('--pace', '--pace', [CompletionResultType]::ParameterName, 'Delay between frames of a stream, e.g. 20ms')
            [CompletionResult]::new('--fault', '--fault', [CompletionResultType]::ParameterName, 'Inject a failure (see below; repeat)')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Wire variant to speak: the service''s document, the vendor''s examples, older servers')
            [CompletionResult]::new('--today', '--today', [CompletionResultType]::ParameterName, 'The date relative periods ("last month") resolve against, e.g. 2025-06-15 (default: today)')
            [CompletionResult]::new('--data-secret-file', '--data-secret-file', [CompletionResultType]::ParameterName, 'Read the HS256 secret of tokens (data API, token auth) from FILE (generated when absent)')
            [CompletionResult]::new('--token-for', '--token-for', [CompletionResultType]::ParameterName, 'Print a data API token for USER signed with --data-secret-file''s secret, and exit')
            [CompletionResult]::new('--attr', '--attr', [CompletionResultType]::ParameterName, 'A user attribute of --token-for''s token (repeat; several values of one name: any of them)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format of the start-up report (default: text)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format of the start-up report (default: text)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--scim-users', '--scim-users', [CompletionResultType]::ParameterName, 'Also start with N synthetic SCIM users (user000001@example.com, ...; for paging tests)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'A YAML or JSON document whose `users:` and `groups:` are the SCIM users and groups to start with, instead of the sample''s')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log a line per request answered on stderr (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log a line per request answered on stderr (repeat for more)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;config' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a profile (asks on a terminal for what the flags do not give)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print every setting as resolved, with where it came from (secrets as ***)')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config file''s path (existing or not)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set one key of a profile (--profile, else the default profile)')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove one key of a profile')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List the profiles, marking the default')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'analyst;config;init' {
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Full chat URL (the agent''s Chat API URL, ending in /chat/stream-chat-state)')
            [CompletionResult]::new('--api-key-env', '--api-key-env', [CompletionResultType]::ParameterName, 'Name of the environment variable that holds the API key (the key is never written)')
            [CompletionResult]::new('--api-key-command', '--api-key-command', [CompletionResultType]::ParameterName, 'Command that prints the API key, e.g. "pass show acme/analyst"')
            [CompletionResult]::new('--external-id', '--external-id', [CompletionResultType]::ParameterName, 'External user id the agent acts for (lowercase, no spaces)')
            [CompletionResult]::new('--scim-url', '--scim-url', [CompletionResultType]::ParameterName, 'SCIM root, e.g. https://acme.example.com/api/scim/v2')
            [CompletionResult]::new('--scim-token-env', '--scim-token-env', [CompletionResultType]::ParameterName, 'Name of the environment variable that holds the SCIM token')
            [CompletionResult]::new('--scim-token-command', '--scim-token-command', [CompletionResultType]::ParameterName, 'Command that prints the SCIM token')
            [CompletionResult]::new('--data-url', '--data-url', [CompletionResultType]::ParameterName, 'Data query API root (.../cubejs-api)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('--default', '--default', [CompletionResultType]::ParameterName, 'Make this profile the default one')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Overwrite an existing profile of that name')
            [CompletionResult]::new('--no-check', '--no-check', [CompletionResultType]::ParameterName, 'Do not run doctor on the new profile after writing (for provisioning without network)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;config;show' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: text)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: text)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;config;path' {
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'analyst;config;set' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;config;unset' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;config;profiles' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: text)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: text)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;config;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a profile (asks on a terminal for what the flags do not give)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print every setting as resolved, with where it came from (secrets as ***)')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config file''s path (existing or not)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set one key of a profile (--profile, else the default profile)')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove one key of a profile')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List the profiles, marking the default')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'analyst;config;help;init' {
            break
        }
        'analyst;config;help;show' {
            break
        }
        'analyst;config;help;path' {
            break
        }
        'analyst;config;help;set' {
            break
        }
        'analyst;config;help;unset' {
            break
        }
        'analyst;config;help;profiles' {
            break
        }
        'analyst;config;help;help' {
            break
        }
        'analyst;doctor' {
            [CompletionResult]::new('--today', '--today', [CompletionResultType]::ParameterName, 'The date the --demo emulator resolves relative periods against, and where its sample data end, e.g. 2025-06-15 (see `analyst serve --today`)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: text)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: text)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Profile of the config file to use [env: ANALYST_PROFILE]')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Config file to read [env: ANALYST_CONFIG]')
            [CompletionResult]::new('--demo', '--demo', [CompletionResultType]::ParameterName, 'Check the built-in emulator instead of the configured service')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No spinner, progress bar or hints on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'analyst;completions' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'analyst;help' {
            [CompletionResult]::new('chat', 'chat', [CompletionResultType]::ParameterValue, 'Send a message to the agent and stream the answer')
            [CompletionResult]::new('state', 'state', [CompletionResultType]::ParameterValue, 'Read a thread''s current state')
            [CompletionResult]::new('abort', 'abort', [CompletionResultType]::ParameterValue, 'Stop a running stream')
            [CompletionResult]::new('scim', 'scim', [CompletionResultType]::ParameterValue, 'SCIM users and groups: find, read, patch (e.g. deactivate), change group members')
            [CompletionResult]::new('extract-final', 'extract-final', [CompletionResultType]::ParameterValue, 'Print the final answer from saved NDJSON')
            [CompletionResult]::new('sql', 'sql', [CompletionResultType]::ParameterValue, 'Run SQL on the data query API and stream every row (the full results behind an answer)')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the agent to AI assistants over the Model Context Protocol (stdio)')
            [CompletionResult]::new('eval', 'eval', [CompletionResultType]::ParameterValue, 'Run suites of questions with expectations; report for people and CI (JUnit)')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Run the built-in local emulator of the service (chat, abort, SCIM, data API)')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Write and read the config file without an editor')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check settings, reachability and credentials, each with its fix')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'analyst;help;chat' {
            break
        }
        'analyst;help;state' {
            break
        }
        'analyst;help;abort' {
            break
        }
        'analyst;help;scim' {
            [CompletionResult]::new('patch', 'patch', [CompletionResultType]::ParameterValue, 'Patch SCIM users, e.g. deactivate them')
            [CompletionResult]::new('users', 'users', [CompletionResultType]::ParameterValue, 'Find SCIM users (a filter, every page) and read them')
            [CompletionResult]::new('groups', 'groups', [CompletionResultType]::ParameterValue, 'Read SCIM groups and change their members')
            break
        }
        'analyst;help;scim;patch' {
            break
        }
        'analyst;help;scim;users' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List users: a filter, a page or every page')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read users by id or userName')
            break
        }
        'analyst;help;scim;users;list' {
            break
        }
        'analyst;help;scim;users;get' {
            break
        }
        'analyst;help;scim;groups' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List groups: a filter, a page or every page')
            [CompletionResult]::new('get', 'get', [CompletionResultType]::ParameterValue, 'Read a group and its members')
            [CompletionResult]::new('add-member', 'add-member', [CompletionResultType]::ParameterValue, 'Put users in a group')
            [CompletionResult]::new('remove-member', 'remove-member', [CompletionResultType]::ParameterValue, 'Take users out of a group')
            break
        }
        'analyst;help;scim;groups;list' {
            break
        }
        'analyst;help;scim;groups;get' {
            break
        }
        'analyst;help;scim;groups;add-member' {
            break
        }
        'analyst;help;scim;groups;remove-member' {
            break
        }
        'analyst;help;extract-final' {
            break
        }
        'analyst;help;sql' {
            break
        }
        'analyst;help;mcp' {
            break
        }
        'analyst;help;eval' {
            break
        }
        'analyst;help;serve' {
            break
        }
        'analyst;help;config' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Write a profile (asks on a terminal for what the flags do not give)')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print every setting as resolved, with where it came from (secrets as ***)')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the config file''s path (existing or not)')
            [CompletionResult]::new('set', 'set', [CompletionResultType]::ParameterValue, 'Set one key of a profile (--profile, else the default profile)')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove one key of a profile')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'List the profiles, marking the default')
            break
        }
        'analyst;help;config;init' {
            break
        }
        'analyst;help;config;show' {
            break
        }
        'analyst;help;config;path' {
            break
        }
        'analyst;help;config;set' {
            break
        }
        'analyst;help;config;unset' {
            break
        }
        'analyst;help;config;profiles' {
            break
        }
        'analyst;help;doctor' {
            break
        }
        'analyst;help;completions' {
            break
        }
        'analyst;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
