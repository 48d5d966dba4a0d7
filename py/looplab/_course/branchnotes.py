"""The six sample notes the research-helper lessons search and read: two library branches' visits,
opening days and staff, each an id with a title and a text.

    from looplab import BRANCH_NOTES
    NOTES = dict(BRANCH_NOTES)  # a lesson's own copy: a note it deletes is gone from its copy only

Lesson 1 shows them; the lessons after it (and the tests of the research helper) take them from here,
so every lesson asks about the same figures: Eastside 1310 April visits, Westside 1105.
"""

from types import MappingProxyType

BRANCH_NOTES = MappingProxyType(
    {
        "n1": ("Eastside branch: visits", "March visits: 1240. April visits: 1310."),
        "n2": ("Westside branch: visits", "March visits: 980. April visits: 1105."),
        "n3": ("Eastside branch: opening days", "Open Monday to Saturday."),
        "n4": ("Westside branch: opening days", "Open Monday to Friday."),
        "n5": ("Eastside branch: staff", "Staff count: 14."),
        "n6": ("Westside branch: staff", "Staff count: 9."),
    }
)
