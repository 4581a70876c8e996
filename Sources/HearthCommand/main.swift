// hearth: runs the library on your files. See `hearth --help` and docs/guides/command.md.

import Foundation

exit(HearthCommand.main(Array(CommandLine.arguments.dropFirst())))
