// Click on a bar segment, a timeline point or a number: its confidence and evidence in the panel.
(function () {
  var panel = document.getElementById('evidence');
  document.addEventListener('click', function (e) {
    var t = e.target.closest ? e.target.closest('[data-evidence]') : null;
    if (t && panel) {
      panel.textContent = t.getAttribute('data-evidence');
    }
  });
})();
