"""What `evmstate init` writes: project (a new project, or a machines folder in a moccasin project); importers name the
module they use.
"""
