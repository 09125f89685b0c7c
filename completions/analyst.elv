
use builtin;
use str;

set edit:completion:arg-completer[analyst] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'analyst'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'analyst'= {
            cand -o 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --output 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand chat 'Send a message to the agent and stream the answer'
            cand state 'Read a thread''s current state'
            cand abort 'Stop a running stream'
            cand scim 'Patch SCIM users, e.g. deactivate them'
            cand extract-final 'Print the final answer from saved NDJSON'
            cand serve 'Run the built-in local emulator of the service (chat, abort, SCIM)'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;chat'= {
            cand --chat-id 'The thread (chat) id'
            cand --message-id 'Message id (default: <unix-ms>-message)'
            cand --branch 'Branch to work on (activeBranchName)'
            cand --image 'Attach an image (repeat)'
            cand --save 'Also write the raw lines to FILE (exactly what -o ndjson prints)'
            cand --retries 'How often to resume a dropped stream'
            cand --dialect 'Wire variant the --demo emulator speaks (see `analyst serve --dialect`)'
            cand --today 'The date the --demo emulator resolves relative periods against (see `analyst serve --today`)'
            cand --body 'A whole request body to start from (inline JSON, @FILE, FILE or -); flags override its fields'
            cand --replay 'Render a saved stream (FILE or -) without contacting the service'
            cand --url 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]'
            cand --base-url 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]'
            cand --account 'Account name [env: ANALYST_ACCOUNT]'
            cand --agent 'Agent id [env: ANALYST_AGENT]'
            cand --api-key-file 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself'
            cand --token-file 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself'
            cand --external-id 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]'
            cand --internal-id 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]'
            cand --email 'The user''s email'
            cand --attr 'User attribute for row-level security (repeat)'
            cand --group 'Group (repeat)'
            cand --role 'Role (repeat)'
            cand --security-context 'Security context object: inline JSON, @FILE, FILE or - for stdin'
            cand --timezone 'IANA time zone, e.g. Europe/Berlin'
            cand --user-ttl 'Lifetime of an ephemeral user, e.g. 2h or 7d'
            cand --session 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields'
            cand -o 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --output 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -c 'The last thread used with this profile'
            cand --continue 'The last thread used with this profile'
            cand --default-branch 'Mark the branch as the default one (isDefaultBranch)'
            cand --fallback 'With no final frame in the stream, take the last complete assistant message (with a warning)'
            cand --show-thinking 'Show the agent''s reasoning (text format)'
            cand --no-abort 'On Ctrl-C, do not send an abort for the thread'
            cand --demo 'Talk to the built-in emulator, started in-process on a free loopback port'
            cand --persist-user 'Keep the external user (isEphemeral: false)'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;state'= {
            cand --chat-id 'The thread (chat) id'
            cand --body 'A whole request body to start from (inline JSON, @FILE, FILE or -); flags override its fields'
            cand --url 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]'
            cand --base-url 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]'
            cand --account 'Account name [env: ANALYST_ACCOUNT]'
            cand --agent 'Agent id [env: ANALYST_AGENT]'
            cand --api-key-file 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself'
            cand --token-file 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself'
            cand --external-id 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]'
            cand --internal-id 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]'
            cand --email 'The user''s email'
            cand --attr 'User attribute for row-level security (repeat)'
            cand --group 'Group (repeat)'
            cand --role 'Role (repeat)'
            cand --security-context 'Security context object: inline JSON, @FILE, FILE or - for stdin'
            cand --timezone 'IANA time zone, e.g. Europe/Berlin'
            cand --user-ttl 'Lifetime of an ephemeral user, e.g. 2h or 7d'
            cand --session 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields'
            cand -o 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --output 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -c 'The last thread used with this profile'
            cand --continue 'The last thread used with this profile'
            cand --persist-user 'Keep the external user (isEphemeral: false)'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;abort'= {
            cand --chat-id 'The thread (chat) id'
            cand --url 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]'
            cand --base-url 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]'
            cand --account 'Account name [env: ANALYST_ACCOUNT]'
            cand --agent 'Agent id [env: ANALYST_AGENT]'
            cand --api-key-file 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself'
            cand --token-file 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself'
            cand --external-id 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]'
            cand --internal-id 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]'
            cand --email 'The user''s email'
            cand --attr 'User attribute for row-level security (repeat)'
            cand --group 'Group (repeat)'
            cand --role 'Role (repeat)'
            cand --security-context 'Security context object: inline JSON, @FILE, FILE or - for stdin'
            cand --timezone 'IANA time zone, e.g. Europe/Berlin'
            cand --user-ttl 'Lifetime of an ephemeral user, e.g. 2h or 7d'
            cand --session 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields'
            cand -o 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --output 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -c 'The last thread used with this profile'
            cand --continue 'The last thread used with this profile'
            cand --persist-user 'Keep the external user (isEphemeral: false)'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;scim'= {
            cand -o 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --output 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand patch 'Patch SCIM users, e.g. deactivate them'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;scim;patch'= {
            cand --ids-from 'Read ids from FILE (- for stdin), one per line; # comments and blank lines are skipped'
            cand --user-name 'Find the user by userName (repeat)'
            cand --replace 'replace PATH with VALUE (repeat)'
            cand --add 'add VALUE at PATH (repeat)'
            cand --remove 'remove PATH (repeat)'
            cand --body 'A whole PatchOp document (inline JSON, @FILE, FILE or -)'
            cand --if-match 'Send If-Match: ETAG (the server answers 412 when the user changed)'
            cand --attributes 'Ask for these attributes of the patched user (comma-separated)'
            cand -j 'Requests in flight at once'
            cand --concurrency 'Requests in flight at once'
            cand --retries 'Retries of 429 and 503 per user (3: at most 4 tries)'
            cand --scim-url 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]'
            cand --scim-token-file 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself'
            cand -o 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --output 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand --deactivate 'replace active false'
            cand --activate 'replace active true'
            cand --pathless 'Send replace operations as one path-less value object'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;scim;help'= {
            cand patch 'Patch SCIM users, e.g. deactivate them'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;scim;help;patch'= {
        }
        &'analyst;scim;help;help'= {
        }
        &'analyst;extract-final'= {
            cand -o 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --output 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand --fallback 'Accept the last complete assistant message with content when there is no final frame'
            cand --strict 'Stop at the first malformed line instead of skipping it'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;serve'= {
            cand --listen 'Address to listen on'
            cand --account 'Account name in the chat URL'
            cand --agent 'Agent id in the chat URL'
            cand --api-key-file 'Read the API key clients must send from FILE (generated when absent)'
            cand --scim-token-file 'Read the SCIM token clients must send from FILE (generated when absent)'
            cand --model 'Semantic model (YAML) instead of the built-in one'
            cand --data 'SQLite database instead of the built-in sample dataset'
            cand --pace 'Delay between frames of a stream, e.g. 20ms'
            cand --fault 'Inject a failure (see below; repeat)'
            cand --dialect 'Wire variant to speak: the service''s document, the vendor''s examples, older servers'
            cand --today 'The date relative periods ("last month") resolve against, e.g. 2025-06-15 (default: today)'
            cand -o 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --output 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;completions'= {
            cand -o 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --output 'Output format (which ones a command takes is in its help; the default depends on whether stdout is a terminal)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;help'= {
            cand chat 'Send a message to the agent and stream the answer'
            cand state 'Read a thread''s current state'
            cand abort 'Stop a running stream'
            cand scim 'Patch SCIM users, e.g. deactivate them'
            cand extract-final 'Print the final answer from saved NDJSON'
            cand serve 'Run the built-in local emulator of the service (chat, abort, SCIM)'
            cand completions 'Print a shell completion script'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;help;chat'= {
        }
        &'analyst;help;state'= {
        }
        &'analyst;help;abort'= {
        }
        &'analyst;help;scim'= {
            cand patch 'Patch SCIM users, e.g. deactivate them'
        }
        &'analyst;help;scim;patch'= {
        }
        &'analyst;help;extract-final'= {
        }
        &'analyst;help;serve'= {
        }
        &'analyst;help;completions'= {
        }
        &'analyst;help;help'= {
        }
    ]
    $completions[$command]
}
