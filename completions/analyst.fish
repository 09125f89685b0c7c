# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_analyst_global_optspecs
    string join \n h/help V/version
end

function __fish_analyst_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_analyst_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_analyst_using_subcommand
    set -l cmd (__fish_analyst_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c analyst -n "__fish_analyst_needs_command" -s h -l help -d 'Print help'
complete -c analyst -n "__fish_analyst_needs_command" -s V -l version -d 'Print version'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "chat" -d 'Send a message to the agent and stream the answer'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "state" -d 'Read a thread\'s current state'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "abort" -d 'Stop a running stream'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "scim" -d 'SCIM users and groups: find, read, patch (e.g. deactivate), change group members'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "extract-final" -d 'Print the final answer from saved NDJSON'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "sql" -d 'Run SQL on the data query API and stream every row (the full results behind an answer)'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "mcp" -d 'Serve the agent to AI assistants over the Model Context Protocol (stdio)'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "eval" -d 'Run suites of questions with expectations; report for people and CI (JUnit)'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "serve" -d 'Run the built-in local emulator of the service (chat, abort, SCIM, data API)'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "config" -d 'Write and read the config file without an editor'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "doctor" -d 'Check settings, reachability and credentials, each with its fix'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c analyst -n "__fish_analyst_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l chat-id -d 'The thread (chat) id' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l message-id -d 'Message id (default: <unix-ms>-message)' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l branch -d 'Branch to work on (activeBranchName)' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l image -d 'Attach an image (repeat)' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l save -d 'Also write the raw lines to FILE (exactly what -o ndjson prints)' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l retries -d 'How often to resume a dropped stream' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l dialect -d 'Wire variant the --demo emulator speaks (see `analyst serve --dialect`)' -r -f -a "seed\t'The service\'s document: final frames, HTTP statuses for refusals'
docs\t'The vendor\'s published examples: cube_* names, no final frames, errors in a 200'
legacy\t'Older servers: as docs, rows as objects, SQL tool input as a bare query, the older meta shape, SCIM users with active as a string and PascalCase meta, no __usage__/__suspended__/__aborted__'"
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l today -d 'The date the --demo emulator resolves relative periods against (see `analyst serve --today`)' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l body -d 'A whole request body to start from (inline JSON, @FILE, FILE or -); flags override its fields' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l replay -d 'Render a saved stream (FILE or -) without contacting the service' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l rows -d 'Rows of each result table in text (0 = all that arrived)' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l chart -d 'Write each charted result to FILE: .svg, .html or .vl.json (several: FILE-1, FILE-2...)' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l url -d 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l base-url -d 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l account -d 'Account name [env: ANALYST_ACCOUNT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l agent -d 'Agent id [env: ANALYST_AGENT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l api-key-file -d 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l token-file -d 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l external-id -d 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l internal-id -d 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l email -d 'The user\'s email' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l attr -d 'User attribute for row-level security (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l group -d 'Group (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l role -d 'Role (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l security-context -d 'Security context object: inline JSON, @FILE, FILE or - for stdin' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l timezone -d 'IANA time zone, e.g. Europe/Berlin (for sql: the query\'s time zone)' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l user-ttl -d 'Lifetime of an ephemeral user, e.g. 2h or 7d' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l session -d 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -s o -l output -d 'Output format (default: text on a terminal, else ndjson)' -r -f -a "text\t''
ndjson\t''
json\t''
yaml\t''
final\t''"
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l connect-timeout -d 'Longest wait to connect, e.g. 10s' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l idle-timeout -d 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand chat" -s c -l continue -d 'The last thread used with this profile'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l default-branch -d 'Mark the branch as the default one (isDefaultBranch)'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l fallback -d 'With no final frame in the stream, take the last complete assistant message (with a warning)'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l show-thinking -d 'Show the agent\'s reasoning (text format)'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l no-abort -d 'On Ctrl-C, do not send an abort for the thread'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l demo -d 'Talk to the built-in emulator, started in-process on a free loopback port'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l no-chart -d 'Do not draw charts under the tables in text'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -s i -l interactive -d 'A prompt: each line a message in the same thread (terminal only)'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l persist-user -d 'Keep the external user (isEphemeral: false)'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -s v -l verbose -d 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -l dry-run -d 'Print the request that would be sent (secrets as ***) and exit without sending it'
complete -c analyst -n "__fish_analyst_using_subcommand chat" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand state" -l chat-id -d 'The thread (chat) id' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l body -d 'A whole request body to start from (inline JSON, @FILE, FILE or -); flags override its fields' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l url -d 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l base-url -d 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l account -d 'Account name [env: ANALYST_ACCOUNT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l agent -d 'Agent id [env: ANALYST_AGENT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l api-key-file -d 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand state" -l token-file -d 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand state" -l external-id -d 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l internal-id -d 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l email -d 'The user\'s email' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l attr -d 'User attribute for row-level security (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l group -d 'Group (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l role -d 'Role (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l security-context -d 'Security context object: inline JSON, @FILE, FILE or - for stdin' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l timezone -d 'IANA time zone, e.g. Europe/Berlin (for sql: the query\'s time zone)' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l user-ttl -d 'Lifetime of an ephemeral user, e.g. 2h or 7d' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l session -d 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -s o -l output -d 'Output format (default: table on a terminal, else ndjson)' -r -f -a "table\t''
ndjson\t''
json\t''
yaml\t''"
complete -c analyst -n "__fish_analyst_using_subcommand state" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand state" -l connect-timeout -d 'Longest wait to connect, e.g. 10s' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l idle-timeout -d 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand state" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand state" -s c -l continue -d 'The last thread used with this profile'
complete -c analyst -n "__fish_analyst_using_subcommand state" -l persist-user -d 'Keep the external user (isEphemeral: false)'
complete -c analyst -n "__fish_analyst_using_subcommand state" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand state" -s v -l verbose -d 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
complete -c analyst -n "__fish_analyst_using_subcommand state" -l dry-run -d 'Print the request that would be sent (secrets as ***) and exit without sending it'
complete -c analyst -n "__fish_analyst_using_subcommand state" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l chat-id -d 'The thread (chat) id' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l url -d 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l base-url -d 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l account -d 'Account name [env: ANALYST_ACCOUNT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l agent -d 'Agent id [env: ANALYST_AGENT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l api-key-file -d 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l token-file -d 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l external-id -d 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l internal-id -d 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l email -d 'The user\'s email' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l attr -d 'User attribute for row-level security (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l group -d 'Group (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l role -d 'Role (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l security-context -d 'Security context object: inline JSON, @FILE, FILE or - for stdin' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l timezone -d 'IANA time zone, e.g. Europe/Berlin (for sql: the query\'s time zone)' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l user-ttl -d 'Lifetime of an ephemeral user, e.g. 2h or 7d' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l session -d 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -s o -l output -d 'Format of --dry-run\'s request (default: text)' -r -f -a "text\t''
json\t''
ndjson\t''
yaml\t''"
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l connect-timeout -d 'Longest wait to connect, e.g. 10s' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l idle-timeout -d 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand abort" -s c -l continue -d 'The last thread used with this profile'
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l persist-user -d 'Keep the external user (isEphemeral: false)'
complete -c analyst -n "__fish_analyst_using_subcommand abort" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand abort" -s v -l verbose -d 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
complete -c analyst -n "__fish_analyst_using_subcommand abort" -l dry-run -d 'Print the request that would be sent (secrets as ***) and exit without sending it'
complete -c analyst -n "__fish_analyst_using_subcommand abort" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and not __fish_seen_subcommand_from patch users groups help" -s h -l help -d 'Print help'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and not __fish_seen_subcommand_from patch users groups help" -f -a "patch" -d 'Patch SCIM users, e.g. deactivate them'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and not __fish_seen_subcommand_from patch users groups help" -f -a "users" -d 'Find SCIM users (a filter, every page) and read them'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and not __fish_seen_subcommand_from patch users groups help" -f -a "groups" -d 'Read SCIM groups and change their members'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and not __fish_seen_subcommand_from patch users groups help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l ids-from -d 'Read ids from FILE (- for stdin), one per line; # comments and blank lines are skipped' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l user-name -d 'Find the user by userName (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l filter -d 'Patch every user this SCIM filter matches (every page)' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l replace -d 'replace PATH with VALUE (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l add -d 'add VALUE at PATH (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l remove -d 'remove PATH (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l body -d 'A whole PatchOp document (inline JSON, @FILE, FILE or -)' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l if-match -d 'Send If-Match: ETAG (the server answers 412 when the user changed)' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l attributes -d 'Ask for these attributes of the patched user (comma-separated)' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -s j -l concurrency -d 'Requests in flight at once' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l retries -d 'Retries of 429 and 503 per user (3: at most 4 tries)' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l scim-url -d 'SCIM root, e.g. https://t.example.com/api/scim/v2 [env: ANALYST_SCIM_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l scim-token-file -d 'Read the SCIM token from FILE (- for stdin), or set ANALYST_SCIM_TOKEN to the token itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -s o -l output -d 'Output format (default: table on a terminal, else json)' -r -f -a "table\t''
json\t''
ndjson\t''
yaml\t''"
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l connect-timeout -d 'Longest wait to connect, e.g. 10s' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l idle-timeout -d 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -s y -l yes -d 'With --filter: patch without asking (needed when there is no terminal to ask on)'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l deactivate -d 'replace active false'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l activate -d 'replace active true'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l pathless -d 'Send replace operations as one path-less value object'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -s v -l verbose -d 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -l dry-run -d 'Print the request that would be sent (secrets as ***) and exit without sending it'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from patch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from users" -s h -l help -d 'Print help'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from users" -f -a "list" -d 'List users: a filter, a page or every page'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from users" -f -a "get" -d 'Read users by id or userName'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from users" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from groups" -s h -l help -d 'Print help'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from groups" -f -a "list" -d 'List groups: a filter, a page or every page'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from groups" -f -a "get" -d 'Read a group and its members'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from groups" -f -a "add-member" -d 'Put users in a group'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from groups" -f -a "remove-member" -d 'Take users out of a group'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from groups" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from help" -f -a "patch" -d 'Patch SCIM users, e.g. deactivate them'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from help" -f -a "users" -d 'Find SCIM users (a filter, every page) and read them'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from help" -f -a "groups" -d 'Read SCIM groups and change their members'
complete -c analyst -n "__fish_analyst_using_subcommand scim; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c analyst -n "__fish_analyst_using_subcommand extract-final" -s o -l output -d 'Output format (default: text)' -r -f -a "text\t''
json\t''
yaml\t''"
complete -c analyst -n "__fish_analyst_using_subcommand extract-final" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand extract-final" -l fallback -d 'Accept the last complete assistant message with content when there is no final frame'
complete -c analyst -n "__fish_analyst_using_subcommand extract-final" -l strict -d 'Stop at the first malformed line instead of skipping it'
complete -c analyst -n "__fish_analyst_using_subcommand extract-final" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand extract-final" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l from -d 'Take the SQL from a saved chat stream (FILE, or - for stdin)' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l chat-id -d 'The thread (chat) id' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l pick -d 'Which SQL of the answer to run, from 1 (default: the last)' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l limit -d 'Stop after N rows and cancel the query on the service' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l cache -d 'Cache policy of the query' -r -f -a "stale-if-slow\t'Serve from cache when the query is slow'
stale-while-revalidate\t'Serve from cache and refresh in the background'
must-revalidate\t'Always check freshness first'
no-cache\t'Bypass the cache'"
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l rows -d 'Rows shown in a table (then a count); 0 = all' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l today -d 'The date the --demo emulator resolves relative periods against, and where its sample data end, e.g. 2025-06-15 (see `analyst serve --today`)' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l data-url -d 'Data query API root, e.g. https://x.example.com/cubejs-api (a bare origin gets /cubejs-api appended) [env: ANALYST_DATA_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l data-token-file -d 'Read the data API token (a JWT) from FILE (- for stdin), or set ANALYST_DATA_TOKEN to the token itself; with token auth the chat token is the default' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l url -d 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l base-url -d 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l account -d 'Account name [env: ANALYST_ACCOUNT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l agent -d 'Agent id [env: ANALYST_AGENT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l api-key-file -d 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l token-file -d 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l external-id -d 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l internal-id -d 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l email -d 'The user\'s email' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l attr -d 'User attribute for row-level security (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l group -d 'Group (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l role -d 'Role (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l security-context -d 'Security context object: inline JSON, @FILE, FILE or - for stdin' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l timezone -d 'IANA time zone, e.g. Europe/Berlin (for sql: the query\'s time zone)' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l user-ttl -d 'Lifetime of an ephemeral user, e.g. 2h or 7d' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l session -d 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -s o -l output -d 'Output format (default: table on a terminal, else csv)' -r -f -a "table\t''
csv\t''
tsv\t''
ndjson\t''
json\t''
yaml\t''"
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l connect-timeout -d 'Longest wait to connect, e.g. 10s' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l idle-timeout -d 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand sql" -s c -l continue -d 'The last thread used with this profile'
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l all -d 'Run every SQL of the answer, one after another'
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l list -d 'List the SQL of the answer (index, title, rows shown, totalRows) and send nothing'
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l no-header -d 'csv and tsv: no header row'
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l demo -d 'Run against the built-in emulator, started in-process (--from a --demo run works)'
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l persist-user -d 'Keep the external user (isEphemeral: false)'
complete -c analyst -n "__fish_analyst_using_subcommand sql" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand sql" -s v -l verbose -d 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
complete -c analyst -n "__fish_analyst_using_subcommand sql" -l dry-run -d 'Print the request that would be sent (secrets as ***) and exit without sending it'
complete -c analyst -n "__fish_analyst_using_subcommand sql" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l today -d 'The date the --demo emulator resolves relative periods against, and where its sample data end, e.g. 2025-06-15 (see `analyst serve --today`)' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l dialect -d 'Wire variant the --demo emulator speaks (see `analyst serve --dialect`)' -r -f -a "seed\t'The service\'s document: final frames, HTTP statuses for refusals'
docs\t'The vendor\'s published examples: cube_* names, no final frames, errors in a 200'
legacy\t'Older servers: as docs, rows as objects, SQL tool input as a bare query, the older meta shape, SCIM users with active as a string and PascalCase meta, no __usage__/__suspended__/__aborted__'"
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l retries -d 'How often `ask` resumes a dropped stream' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l data-url -d 'Data query API root, e.g. https://x.example.com/cubejs-api (a bare origin gets /cubejs-api appended) [env: ANALYST_DATA_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l data-token-file -d 'Read the data API token (a JWT) from FILE (- for stdin), or set ANALYST_DATA_TOKEN to the token itself; with token auth the chat token is the default' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l url -d 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l base-url -d 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l account -d 'Account name [env: ANALYST_ACCOUNT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l agent -d 'Agent id [env: ANALYST_AGENT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l api-key-file -d 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l token-file -d 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l external-id -d 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l internal-id -d 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l email -d 'The user\'s email' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l attr -d 'User attribute for row-level security (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l group -d 'Group (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l role -d 'Role (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l security-context -d 'Security context object: inline JSON, @FILE, FILE or - for stdin' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l timezone -d 'IANA time zone, e.g. Europe/Berlin (for sql: the query\'s time zone)' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l user-ttl -d 'Lifetime of an ephemeral user, e.g. 2h or 7d' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l session -d 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l connect-timeout -d 'Longest wait to connect, e.g. 10s' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l idle-timeout -d 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l demo -d 'Serve the built-in emulator, started in-process on a free loopback port'
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l fallback -d 'With no final frame in the stream, take the last complete assistant message'
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -l persist-user -d 'Keep the external user (isEphemeral: false)'
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -s v -l verbose -d 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
complete -c analyst -n "__fish_analyst_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l filter -d 'Run only cases whose name this regex matches (anywhere in it)' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -s j -l concurrency -d 'Cases run at once' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l repeat -d 'Run each case N times (reported as NAME#1, NAME#2, ...)' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l junit -d 'Also write JUnit XML to FILE' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l save-dir -d 'Keep each case\'s raw stream as DIR/NAME.ndjson (DIR is created when missing)' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l baseline -d 'Compare with an earlier `-o json` result and report regressions' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l retries -d 'How often to resume a dropped stream, per turn' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l today -d 'The date the --demo emulator resolves relative periods against, and where its sample data end, default 2026-06-30 for eval, so that suites of exact numbers stay true; e.g. 2025-06-15 (see `analyst serve --today`)' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l url -d 'Full chat URL, ending in /chat/stream-chat-state [env: ANALYST_CHAT_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l base-url -d 'Base URL of the service, e.g. https://ai.example.com [env: ANALYST_BASE_URL]' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l account -d 'Account name [env: ANALYST_ACCOUNT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l agent -d 'Agent id [env: ANALYST_AGENT]' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l api-key-file -d 'Read the API key from FILE (- for stdin), or set ANALYST_API_KEY to the key itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l token-file -d 'Read a token from FILE (- for stdin) and send it as X-Cube-Auth-Token instead of an API key, or set ANALYST_TOKEN to the token itself' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l external-id -d 'External user id: lowercase, no spaces [env: ANALYST_EXTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l internal-id -d 'Existing internal user, usually an email [env: ANALYST_INTERNAL_ID]' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l email -d 'The user\'s email' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l attr -d 'User attribute for row-level security (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l group -d 'Group (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l role -d 'Role (repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l security-context -d 'Security context object: inline JSON, @FILE, FILE or - for stdin' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l timezone -d 'IANA time zone, e.g. Europe/Berlin (for sql: the query\'s time zone)' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l user-ttl -d 'Lifetime of an ephemeral user, e.g. 2h or 7d' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l session -d 'The whole sessionSettings object: inline JSON, @FILE, FILE or -; flags override its fields' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -s o -l output -d 'Output format (default: table on a terminal, else json)' -r -f -a "table\t''
json\t''
ndjson\t''
yaml\t''
markdown\t''"
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l connect-timeout -d 'Longest wait to connect, e.g. 10s' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l idle-timeout -d 'Longest wait for the next byte of a response, e.g. 5m (there is no total timeout)' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l fallback -d 'With no final frame in a stream, take the last complete assistant message'
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l demo -d 'Talk to the built-in emulator, started in-process on a free loopback port'
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l persist-user -d 'Keep the external user (isEphemeral: false)'
complete -c analyst -n "__fish_analyst_using_subcommand eval" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand eval" -s v -l verbose -d 'Request and response diagnostics on stderr (repeat for more; secrets show as ***)'
complete -c analyst -n "__fish_analyst_using_subcommand eval" -l dry-run -d 'Print the request that would be sent (secrets as ***) and exit without sending it'
complete -c analyst -n "__fish_analyst_using_subcommand eval" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l listen -d 'Address to listen on' -r
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l account -d 'Account name in the chat URL' -r
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l agent -d 'Agent id in the chat URL' -r
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l api-key-file -d 'Read the API key clients must send from FILE (generated when absent)' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l scim-token-file -d 'Read the SCIM token clients must send from FILE (generated when absent)' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l model -d 'Semantic model (YAML) instead of the built-in one' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l data -d 'Your data instead of the built-in sample: one SQLite file, or CSV files (repeat: one table per file, named after it; a header row required); a model is inferred without --model' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l write-sample -d 'Write the built-in sample shop, as the demo sees it on --today (default: the real date), to a new SQLite file and exit' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l pace -d 'Delay between frames of a stream, e.g. 20ms' -r
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l fault -d 'Inject a failure (see below; repeat)' -r
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l dialect -d 'Wire variant to speak: the service\'s document, the vendor\'s examples, older servers' -r -f -a "seed\t'The service\'s document: final frames, HTTP statuses for refusals'
docs\t'The vendor\'s published examples: cube_* names, no final frames, errors in a 200'
legacy\t'Older servers: as docs, rows as objects, SQL tool input as a bare query, the older meta shape, SCIM users with active as a string and PascalCase meta, no __usage__/__suspended__/__aborted__'"
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l today -d 'The date relative periods ("last month") resolve against, e.g. 2025-06-15 (default: today)' -r
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l data-secret-file -d 'Read the HS256 secret of tokens (data API, token auth) from FILE (generated when absent)' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l token-for -d 'Print a data API token for USER signed with --data-secret-file\'s secret, and exit' -r
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l attr -d 'A user attribute of --token-for\'s token (repeat; several values of one name: any of them)' -r
complete -c analyst -n "__fish_analyst_using_subcommand serve" -s o -l output -d 'Output format of the start-up report (default: text)' -r -f -a "text\t''
json\t''"
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l scim-users -d 'Also start with N synthetic SCIM users (user000001@example.com, ...; for paging tests)' -r
complete -c analyst -n "__fish_analyst_using_subcommand serve" -l config -d 'A YAML or JSON document whose `users:` and `groups:` are the SCIM users and groups to start with, instead of the sample\'s' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand serve" -s v -l verbose -d 'Log a line per request answered on stderr (repeat for more)'
complete -c analyst -n "__fish_analyst_using_subcommand serve" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand config; and not __fish_seen_subcommand_from init show path set unset profiles help" -s h -l help -d 'Print help'
complete -c analyst -n "__fish_analyst_using_subcommand config; and not __fish_seen_subcommand_from init show path set unset profiles help" -f -a "init" -d 'Write a profile (asks on a terminal for what the flags do not give)'
complete -c analyst -n "__fish_analyst_using_subcommand config; and not __fish_seen_subcommand_from init show path set unset profiles help" -f -a "show" -d 'Print every setting as resolved, with where it came from (secrets as ***)'
complete -c analyst -n "__fish_analyst_using_subcommand config; and not __fish_seen_subcommand_from init show path set unset profiles help" -f -a "path" -d 'Print the config file\'s path (existing or not)'
complete -c analyst -n "__fish_analyst_using_subcommand config; and not __fish_seen_subcommand_from init show path set unset profiles help" -f -a "set" -d 'Set one key of a profile (--profile, else the default profile)'
complete -c analyst -n "__fish_analyst_using_subcommand config; and not __fish_seen_subcommand_from init show path set unset profiles help" -f -a "unset" -d 'Remove one key of a profile'
complete -c analyst -n "__fish_analyst_using_subcommand config; and not __fish_seen_subcommand_from init show path set unset profiles help" -f -a "profiles" -d 'List the profiles, marking the default'
complete -c analyst -n "__fish_analyst_using_subcommand config; and not __fish_seen_subcommand_from init show path set unset profiles help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l url -d 'Full chat URL (the agent\'s Chat API URL, ending in /chat/stream-chat-state)' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l api-key-env -d 'Name of the environment variable that holds the API key (the key is never written)' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l api-key-command -d 'Command that prints the API key, e.g. "pass show acme/analyst"' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l external-id -d 'External user id the agent acts for (lowercase, no spaces)' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l scim-url -d 'SCIM root, e.g. https://acme.example.com/api/scim/v2' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l scim-token-env -d 'Name of the environment variable that holds the SCIM token' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l scim-token-command -d 'Command that prints the SCIM token' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l data-url -d 'Data query API root (.../cubejs-api)' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l default -d 'Make this profile the default one'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l force -d 'Overwrite an existing profile of that name'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -l no-check -d 'Do not run doctor on the new profile after writing (for provisioning without network)'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from show" -s o -l output -d 'Output format (default: text)' -r -f -a "text\t''
json\t''
yaml\t''"
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from show" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from show" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from show" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from show" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from path" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from path" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from path" -s h -l help -d 'Print help'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from set" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from set" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from set" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from set" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from unset" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from unset" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from unset" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from unset" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from unset" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from profiles" -s o -l output -d 'Output format (default: text)' -r -f -a "text\t''
json\t''"
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from profiles" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from profiles" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from profiles" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from profiles" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from profiles" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "init" -d 'Write a profile (asks on a terminal for what the flags do not give)'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print every setting as resolved, with where it came from (secrets as ***)'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "path" -d 'Print the config file\'s path (existing or not)'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "set" -d 'Set one key of a profile (--profile, else the default profile)'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "unset" -d 'Remove one key of a profile'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "profiles" -d 'List the profiles, marking the default'
complete -c analyst -n "__fish_analyst_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c analyst -n "__fish_analyst_using_subcommand doctor" -l today -d 'The date the --demo emulator resolves relative periods against, and where its sample data end, e.g. 2025-06-15 (see `analyst serve --today`)' -r
complete -c analyst -n "__fish_analyst_using_subcommand doctor" -s o -l output -d 'Output format (default: text)' -r -f -a "text\t''
json\t''"
complete -c analyst -n "__fish_analyst_using_subcommand doctor" -l color -d 'When to use colours (NO_COLOR and CLICOLOR_FORCE are honoured with `auto`)' -r -f -a "auto\t'Colour when writing to a terminal'
always\t'Always colour'
never\t'Never colour'"
complete -c analyst -n "__fish_analyst_using_subcommand doctor" -l profile -d 'Profile of the config file to use [env: ANALYST_PROFILE]' -r
complete -c analyst -n "__fish_analyst_using_subcommand doctor" -l config -d 'Config file to read [env: ANALYST_CONFIG]' -r -F
complete -c analyst -n "__fish_analyst_using_subcommand doctor" -l demo -d 'Check the built-in emulator instead of the configured service'
complete -c analyst -n "__fish_analyst_using_subcommand doctor" -s q -l quiet -d 'No spinner, progress bar or hints on stderr'
complete -c analyst -n "__fish_analyst_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c analyst -n "__fish_analyst_using_subcommand completions" -s h -l help -d 'Print help'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "chat" -d 'Send a message to the agent and stream the answer'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "state" -d 'Read a thread\'s current state'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "abort" -d 'Stop a running stream'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "scim" -d 'SCIM users and groups: find, read, patch (e.g. deactivate), change group members'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "extract-final" -d 'Print the final answer from saved NDJSON'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "sql" -d 'Run SQL on the data query API and stream every row (the full results behind an answer)'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "mcp" -d 'Serve the agent to AI assistants over the Model Context Protocol (stdio)'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "eval" -d 'Run suites of questions with expectations; report for people and CI (JUnit)'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "serve" -d 'Run the built-in local emulator of the service (chat, abort, SCIM, data API)'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "config" -d 'Write and read the config file without an editor'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "doctor" -d 'Check settings, reachability and credentials, each with its fix'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c analyst -n "__fish_analyst_using_subcommand help; and not __fish_seen_subcommand_from chat state abort scim extract-final sql mcp eval serve config doctor completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c analyst -n "__fish_analyst_using_subcommand help; and __fish_seen_subcommand_from scim" -f -a "patch" -d 'Patch SCIM users, e.g. deactivate them'
complete -c analyst -n "__fish_analyst_using_subcommand help; and __fish_seen_subcommand_from scim" -f -a "users" -d 'Find SCIM users (a filter, every page) and read them'
complete -c analyst -n "__fish_analyst_using_subcommand help; and __fish_seen_subcommand_from scim" -f -a "groups" -d 'Read SCIM groups and change their members'
complete -c analyst -n "__fish_analyst_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "init" -d 'Write a profile (asks on a terminal for what the flags do not give)'
complete -c analyst -n "__fish_analyst_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Print every setting as resolved, with where it came from (secrets as ***)'
complete -c analyst -n "__fish_analyst_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "path" -d 'Print the config file\'s path (existing or not)'
complete -c analyst -n "__fish_analyst_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "set" -d 'Set one key of a profile (--profile, else the default profile)'
complete -c analyst -n "__fish_analyst_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "unset" -d 'Remove one key of a profile'
complete -c analyst -n "__fish_analyst_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "profiles" -d 'List the profiles, marking the default'
