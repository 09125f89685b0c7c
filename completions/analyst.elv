
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
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand chat 'Send a message to the agent and stream the answer'
            cand state 'Read a thread''s current state'
            cand abort 'Stop a running stream'
            cand scim 'SCIM users and groups: find, read, patch (e.g. deactivate), change group members'
            cand extract-final 'Print the final answer from saved NDJSON'
            cand sql 'Run SQL on the data query API and stream every row (the full results behind an answer)'
            cand mcp 'Serve the agent to AI assistants over the Model Context Protocol (stdio)'
            cand eval 'Run suites of questions with expectations; report for people and CI (JUnit)'
            cand serve 'Run the built-in local emulator of the service (chat, abort, SCIM, data API)'
            cand config 'Write and read the config file without an editor'
            cand doctor 'Check settings, reachability and credentials, each with its fix'
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
            cand --rows 'Rows of each result table in text (0 = all that arrived)'
            cand --chart 'Write each charted result to FILE: .svg, .html or .vl.json (several: FILE-1, FILE-2...)'
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
            cand --timezone 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)'
            cand --user-ttl 'Lifetime of an ephemeral user, e.g. 2h or 7d'
            cand --session 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields'
            cand -o 'Output format (default: text on a terminal, else ndjson)'
            cand --output 'Output format (default: text on a terminal, else ndjson)'
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
            cand --no-chart 'Do not draw charts under the tables in text'
            cand -i 'A prompt: each line a message in the same thread (terminal only)'
            cand --interactive 'A prompt: each line a message in the same thread (terminal only)'
            cand --persist-user 'Keep the external user (isEphemeral: false)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
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
            cand --timezone 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)'
            cand --user-ttl 'Lifetime of an ephemeral user, e.g. 2h or 7d'
            cand --session 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields'
            cand -o 'Output format (default: table on a terminal, else ndjson)'
            cand --output 'Output format (default: table on a terminal, else ndjson)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -c 'The last thread used with this profile'
            cand --continue 'The last thread used with this profile'
            cand --persist-user 'Keep the external user (isEphemeral: false)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
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
            cand --timezone 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)'
            cand --user-ttl 'Lifetime of an ephemeral user, e.g. 2h or 7d'
            cand --session 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields'
            cand -o 'Format of --dry-run''s request (default: text)'
            cand --output 'Format of --dry-run''s request (default: text)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -c 'The last thread used with this profile'
            cand --continue 'The last thread used with this profile'
            cand --persist-user 'Keep the external user (isEphemeral: false)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;scim'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand patch 'Patch SCIM users, e.g. deactivate them'
            cand users 'Find SCIM users (a filter, every page) and read them'
            cand groups 'Read SCIM groups and change their members'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;scim;patch'= {
            cand --ids-from 'Read ids from FILE (- for stdin), one per line; # comments and blank lines are skipped'
            cand --user-name 'Find the user by userName (repeat)'
            cand --filter 'Patch every user this SCIM filter matches (every page)'
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
            cand -o 'Output format (default: table on a terminal, else json)'
            cand --output 'Output format (default: table on a terminal, else json)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -y 'With --filter: patch without asking (needed when there is no terminal to ask on)'
            cand --yes 'With --filter: patch without asking (needed when there is no terminal to ask on)'
            cand --deactivate 'replace active false'
            cand --activate 'replace active true'
            cand --pathless 'Send replace operations as one path-less value object'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;scim;users'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand list 'List users: a filter, a page or every page'
            cand get 'Read users by id or userName'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;scim;users;list'= {
            cand --filter 'A SCIM filter, e.g. ''userName ew "@old.example.com" and active eq true'''
            cand --count 'Page size to ask for (with --all, default 1000)'
            cand --start-index '1-based index of the first result'
            cand --attributes 'Ask for these attributes only (comma-separated)'
            cand -o 'Output format (default: table on a terminal, else ndjson)'
            cand --output 'Output format (default: table on a terminal, else ndjson)'
            cand --scim-url 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]'
            cand --scim-token-file 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself'
            cand --retries 'Retries of 429 and 503 per request (3: at most 4 tries)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand --all 'Read every page (the next startIndex follows the itemsPerPage answered)'
            cand --ids 'Print only the ids, one a line (for `scim patch --ids-from -`)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;scim;users;get'= {
            cand --user-name 'Find the user by userName (repeat)'
            cand --attributes 'Ask for these attributes only (comma-separated)'
            cand -o 'Output format (default: table on a terminal, else json)'
            cand --output 'Output format (default: table on a terminal, else json)'
            cand --scim-url 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]'
            cand --scim-token-file 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself'
            cand --retries 'Retries of 429 and 503 per request (3: at most 4 tries)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;scim;users;help'= {
            cand list 'List users: a filter, a page or every page'
            cand get 'Read users by id or userName'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;scim;users;help;list'= {
        }
        &'analyst;scim;users;help;get'= {
        }
        &'analyst;scim;users;help;help'= {
        }
        &'analyst;scim;groups'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand list 'List groups: a filter, a page or every page'
            cand get 'Read a group and its members'
            cand add-member 'Put users in a group'
            cand remove-member 'Take users out of a group'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;scim;groups;list'= {
            cand --filter 'A SCIM filter, e.g. ''userName ew "@old.example.com" and active eq true'''
            cand --count 'Page size to ask for (with --all, default 1000)'
            cand --start-index '1-based index of the first result'
            cand --attributes 'Ask for these attributes only (comma-separated)'
            cand -o 'Output format (default: table on a terminal, else ndjson)'
            cand --output 'Output format (default: table on a terminal, else ndjson)'
            cand --scim-url 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]'
            cand --scim-token-file 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself'
            cand --retries 'Retries of 429 and 503 per request (3: at most 4 tries)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand --all 'Read every page (the next startIndex follows the itemsPerPage answered)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;scim;groups;get'= {
            cand --group-name 'Find the group by displayName'
            cand -o 'Output format (default: table on a terminal, else json)'
            cand --output 'Output format (default: table on a terminal, else json)'
            cand --scim-url 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]'
            cand --scim-token-file 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself'
            cand --retries 'Retries of 429 and 503 per request (3: at most 4 tries)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;scim;groups;add-member'= {
            cand --group-name 'Find the group by displayName'
            cand --user-name 'Find the user by userName (repeat)'
            cand -j 'userName lookups in flight at once'
            cand --concurrency 'userName lookups in flight at once'
            cand -o 'Output format (default: table on a terminal, else json)'
            cand --output 'Output format (default: table on a terminal, else json)'
            cand --scim-url 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]'
            cand --scim-token-file 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself'
            cand --retries 'Retries of 429 and 503 per request (3: at most 4 tries)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;scim;groups;remove-member'= {
            cand --group-name 'Find the group by displayName'
            cand --user-name 'Find the user by userName (repeat)'
            cand -j 'userName lookups in flight at once'
            cand --concurrency 'userName lookups in flight at once'
            cand -o 'Output format (default: table on a terminal, else json)'
            cand --output 'Output format (default: table on a terminal, else json)'
            cand --scim-url 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]'
            cand --scim-token-file 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself'
            cand --retries 'Retries of 429 and 503 per request (3: at most 4 tries)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;scim;groups;help'= {
            cand list 'List groups: a filter, a page or every page'
            cand get 'Read a group and its members'
            cand add-member 'Put users in a group'
            cand remove-member 'Take users out of a group'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;scim;groups;help;list'= {
        }
        &'analyst;scim;groups;help;get'= {
        }
        &'analyst;scim;groups;help;add-member'= {
        }
        &'analyst;scim;groups;help;remove-member'= {
        }
        &'analyst;scim;groups;help;help'= {
        }
        &'analyst;scim;help'= {
            cand patch 'Patch SCIM users, e.g. deactivate them'
            cand users 'Find SCIM users (a filter, every page) and read them'
            cand groups 'Read SCIM groups and change their members'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;scim;help;patch'= {
        }
        &'analyst;scim;help;users'= {
            cand list 'List users: a filter, a page or every page'
            cand get 'Read users by id or userName'
        }
        &'analyst;scim;help;users;list'= {
        }
        &'analyst;scim;help;users;get'= {
        }
        &'analyst;scim;help;groups'= {
            cand list 'List groups: a filter, a page or every page'
            cand get 'Read a group and its members'
            cand add-member 'Put users in a group'
            cand remove-member 'Take users out of a group'
        }
        &'analyst;scim;help;groups;list'= {
        }
        &'analyst;scim;help;groups;get'= {
        }
        &'analyst;scim;help;groups;add-member'= {
        }
        &'analyst;scim;help;groups;remove-member'= {
        }
        &'analyst;scim;help;help'= {
        }
        &'analyst;extract-final'= {
            cand -o 'Output format (default: text)'
            cand --output 'Output format (default: text)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --fallback 'Accept the last complete assistant message with content when there is no final frame'
            cand --strict 'Stop at the first malformed line instead of skipping it'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;sql'= {
            cand --from 'Take the SQL from a saved chat stream (FILE, or - for stdin)'
            cand --chat-id 'The thread (chat) id'
            cand --pick 'Which SQL of the answer to run, from 1 (default: the last)'
            cand --limit 'Stop after N rows and cancel the query on the service'
            cand --cache 'Cache policy of the query'
            cand --rows 'Rows shown in a table (then a count); 0 = all'
            cand --today 'The date the --demo emulator resolves relative periods against, and where its sample data end, e.g. 2025-06-15 (see `analyst serve --today`)'
            cand --data-url 'Data query API root, e.g. https://x.example.com/cubejs-api (a bare origin gets /cubejs-api appended) [env: ANALYST_DATA_URL]'
            cand --data-token-file 'Read the data API token (a JWT) from FILE (- for stdin), or set ANALYST_DATA_TOKEN to the token itself; with token auth the chat token is the default'
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
            cand --timezone 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)'
            cand --user-ttl 'Lifetime of an ephemeral user, e.g. 2h or 7d'
            cand --session 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields'
            cand -o 'Output format (default: table on a terminal, else csv)'
            cand --output 'Output format (default: table on a terminal, else csv)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -c 'The last thread used with this profile'
            cand --continue 'The last thread used with this profile'
            cand --all 'Run every SQL of the answer, one after another'
            cand --list 'List the SQL of the answer (index, title, rows shown, totalRows) and send nothing'
            cand --no-header 'csv and tsv: no header row'
            cand --demo 'Run against the built-in emulator, started in-process (--from a --demo run works)'
            cand --persist-user 'Keep the external user (isEphemeral: false)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --dry-run 'Print the request that would be sent (secrets as ***) and exit without sending it'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;mcp'= {
            cand --today 'The date the --demo emulator resolves relative periods against, and where its sample data end, e.g. 2025-06-15 (see `analyst serve --today`)'
            cand --dialect 'Wire variant the --demo emulator speaks (see `analyst serve --dialect`)'
            cand --retries 'How often `ask` resumes a dropped stream'
            cand --data-url 'Data query API root, e.g. https://x.example.com/cubejs-api (a bare origin gets /cubejs-api appended) [env: ANALYST_DATA_URL]'
            cand --data-token-file 'Read the data API token (a JWT) from FILE (- for stdin), or set ANALYST_DATA_TOKEN to the token itself; with token auth the chat token is the default'
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
            cand --timezone 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)'
            cand --user-ttl 'Lifetime of an ephemeral user, e.g. 2h or 7d'
            cand --session 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand --demo 'Serve the built-in emulator, started in-process on a free loopback port'
            cand --fallback 'With no final frame in the stream, take the last complete assistant message'
            cand --persist-user 'Keep the external user (isEphemeral: false)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;eval'= {
            cand --filter 'Run only cases whose name this regex matches (anywhere in it)'
            cand -j 'Cases run at once'
            cand --concurrency 'Cases run at once'
            cand --repeat 'Run each case N times (reported as NAME#1, NAME#2, ...)'
            cand --junit 'Also write JUnit XML to FILE'
            cand --save-dir 'Keep each case''s raw stream as DIR/NAME.ndjson (DIR is created when missing)'
            cand --baseline 'Compare with an earlier `-o json` result and report regressions'
            cand --retries 'How often to resume a dropped stream, per turn'
            cand --today 'The date the --demo emulator resolves relative periods against, and where its sample data end, default 2026-06-30 for eval, so that suites of exact numbers stay true; e.g. 2025-06-15 (see `analyst serve --today`)'
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
            cand --timezone 'IANA time zone, e.g. Europe/Berlin (for sql: the query''s time zone)'
            cand --user-ttl 'Lifetime of an ephemeral user, e.g. 2h or 7d'
            cand --session 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields'
            cand -o 'Output format (default: table on a terminal, else json)'
            cand --output 'Output format (default: table on a terminal, else json)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --connect-timeout 'Longest wait to connect, e.g. 10s'
            cand --idle-timeout 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand --fallback 'With no final frame in a stream, take the last complete assistant message'
            cand --demo 'Talk to the built-in emulator, started in-process on a free loopback port'
            cand --persist-user 'Keep the external user (isEphemeral: false)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -v 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
            cand --verbose 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
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
            cand --data 'Your data instead of the built-in sample: one SQLite file, or CSV files (repeat: one table per file, named after it; a header row required); a model is inferred without --model'
            cand --write-sample 'Write the built-in sample shop, as the demo sees it on --today (default: the real date), to a new SQLite file and exit'
            cand --pace 'Delay between frames of a stream, e.g. 20ms'
            cand --fault 'Inject a failure (see below; repeat)'
            cand --dialect 'Wire variant to speak: the service''s document, the vendor''s examples, older servers'
            cand --today 'The date relative periods ("last month") resolve against, e.g. 2025-06-15 (default: today)'
            cand --data-secret-file 'Read the HS256 secret of tokens (data API, token auth) from FILE (generated when absent)'
            cand --token-for 'Print a data API token for USER signed with --data-secret-file''s secret, and exit'
            cand --attr 'A user attribute of --token-for''s token (repeat; several values of one name: any of them)'
            cand -o 'Output format of the start-up report (default: text)'
            cand --output 'Output format of the start-up report (default: text)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --scim-users 'Also start with N synthetic SCIM users (user000001@example.com, ...; for paging tests)'
            cand --config 'A YAML or JSON document whose `users:` and `groups:` are the SCIM users and groups to start with, instead of the sample''s'
            cand -v 'Log a line per request answered on stderr (repeat for more)'
            cand --verbose 'Log a line per request answered on stderr (repeat for more)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;config'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand init 'Write a profile (asks on a terminal for what the flags do not give)'
            cand show 'Print every setting as resolved, with where it came from (secrets as ***)'
            cand path 'Print the config file''s path (existing or not)'
            cand set 'Set one key of a profile (--profile, else the default profile)'
            cand unset 'Remove one key of a profile'
            cand profiles 'List the profiles, marking the default'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;config;init'= {
            cand --url 'Full chat URL (the agent''s Chat API URL, ending in /chat/stream-chat-state)'
            cand --api-key-env 'Name of the environment variable that holds the API key (the key is never written)'
            cand --api-key-command 'Command that prints the API key, e.g. "pass show acme/analyst"'
            cand --external-id 'External user id the agent acts for (lowercase, no spaces)'
            cand --scim-url 'SCIM root, e.g. https://acme.example.com/api/scim/v2'
            cand --scim-token-env 'Name of the environment variable that holds the SCIM token'
            cand --scim-token-command 'Command that prints the SCIM token'
            cand --data-url 'Data query API root (.../cubejs-api)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand --default 'Make this profile the default one'
            cand --force 'Overwrite an existing profile of that name'
            cand --no-check 'Do not run doctor on the new profile after writing (for provisioning without network)'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;config;show'= {
            cand -o 'Output format (default: text)'
            cand --output 'Output format (default: text)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;config;path'= {
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'analyst;config;set'= {
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;config;unset'= {
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;config;profiles'= {
            cand -o 'Output format (default: text)'
            cand --output 'Output format (default: text)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;config;help'= {
            cand init 'Write a profile (asks on a terminal for what the flags do not give)'
            cand show 'Print every setting as resolved, with where it came from (secrets as ***)'
            cand path 'Print the config file''s path (existing or not)'
            cand set 'Set one key of a profile (--profile, else the default profile)'
            cand unset 'Remove one key of a profile'
            cand profiles 'List the profiles, marking the default'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'analyst;config;help;init'= {
        }
        &'analyst;config;help;show'= {
        }
        &'analyst;config;help;path'= {
        }
        &'analyst;config;help;set'= {
        }
        &'analyst;config;help;unset'= {
        }
        &'analyst;config;help;profiles'= {
        }
        &'analyst;config;help;help'= {
        }
        &'analyst;doctor'= {
            cand --today 'The date the --demo emulator resolves relative periods against, and where its sample data end, e.g. 2025-06-15 (see `analyst serve --today`)'
            cand -o 'Output format (default: text)'
            cand --output 'Output format (default: text)'
            cand --color 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)'
            cand --profile 'Profile of the config file to use [env: ANALYST_PROFILE]'
            cand --config 'Config file to read [env: ANALYST_CONFIG]'
            cand --demo 'Check the built-in emulator instead of the configured service'
            cand -q 'No spinner, progress bar or hints on stderr'
            cand --quiet 'No spinner, progress bar or hints on stderr'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'analyst;completions'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'analyst;help'= {
            cand chat 'Send a message to the agent and stream the answer'
            cand state 'Read a thread''s current state'
            cand abort 'Stop a running stream'
            cand scim 'SCIM users and groups: find, read, patch (e.g. deactivate), change group members'
            cand extract-final 'Print the final answer from saved NDJSON'
            cand sql 'Run SQL on the data query API and stream every row (the full results behind an answer)'
            cand mcp 'Serve the agent to AI assistants over the Model Context Protocol (stdio)'
            cand eval 'Run suites of questions with expectations; report for people and CI (JUnit)'
            cand serve 'Run the built-in local emulator of the service (chat, abort, SCIM, data API)'
            cand config 'Write and read the config file without an editor'
            cand doctor 'Check settings, reachability and credentials, each with its fix'
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
            cand users 'Find SCIM users (a filter, every page) and read them'
            cand groups 'Read SCIM groups and change their members'
        }
        &'analyst;help;scim;patch'= {
        }
        &'analyst;help;scim;users'= {
            cand list 'List users: a filter, a page or every page'
            cand get 'Read users by id or userName'
        }
        &'analyst;help;scim;users;list'= {
        }
        &'analyst;help;scim;users;get'= {
        }
        &'analyst;help;scim;groups'= {
            cand list 'List groups: a filter, a page or every page'
            cand get 'Read a group and its members'
            cand add-member 'Put users in a group'
            cand remove-member 'Take users out of a group'
        }
        &'analyst;help;scim;groups;list'= {
        }
        &'analyst;help;scim;groups;get'= {
        }
        &'analyst;help;scim;groups;add-member'= {
        }
        &'analyst;help;scim;groups;remove-member'= {
        }
        &'analyst;help;extract-final'= {
        }
        &'analyst;help;sql'= {
        }
        &'analyst;help;mcp'= {
        }
        &'analyst;help;eval'= {
        }
        &'analyst;help;serve'= {
        }
        &'analyst;help;config'= {
            cand init 'Write a profile (asks on a terminal for what the flags do not give)'
            cand show 'Print every setting as resolved, with where it came from (secrets as ***)'
            cand path 'Print the config file''s path (existing or not)'
            cand set 'Set one key of a profile (--profile, else the default profile)'
            cand unset 'Remove one key of a profile'
            cand profiles 'List the profiles, marking the default'
        }
        &'analyst;help;config;init'= {
        }
        &'analyst;help;config;show'= {
        }
        &'analyst;help;config;path'= {
        }
        &'analyst;help;config;set'= {
        }
        &'analyst;help;config;unset'= {
        }
        &'analyst;help;config;profiles'= {
        }
        &'analyst;help;doctor'= {
        }
        &'analyst;help;completions'= {
        }
        &'analyst;help;help'= {
        }
    ]
    $completions[$command]
}
