"""The course around the agent library: what runs the lessons, checks them and serves them.

Lesson files (lessonfile, course, lessonfolder), running a lesson and its checks (lesson, checks,
testcells, loopattempt), checks that compare the learner's part with the lesson's reference
(reference, compare, cases, scenarios) and the mutation score that measures the checks (mutate,
mutants), your code carried forward (mine), "built it" records re-checked by replay (record,
`looplab verify`), the Chat tab and `looplab chat` (chat, conversation, talk), input() in the page
(stdin), notebooks, the command line (cli) and `looplab serve`, and what the lessons' agents work
on (branchnotes, project, projecttests, editreview). It imports the library; the library never
imports it. The names a lesson uses are handed on by `looplab` itself (`from looplab import expect`).
"""
